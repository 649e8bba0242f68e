package serve

// Stage: the web view for people, served from web/ (embedded: it works
// offline, with no external script, font or stylesheet). It reads the
// JSON API, so it shows what the API shows: never a secret value.

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed web
var webFiles embed.FS

var webRoot, _ = fs.Sub(webFiles, "web")

var webServer = http.FileServerFS(webRoot)

func (s *Server) web(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	webServer.ServeHTTP(w, r)
}
