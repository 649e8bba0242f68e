package serve

// Stage: what operators read. /healthz, Prometheus metrics in the text
// exposition format (written by hand: a few counters, a histogram and
// gauges), and one structured access log line per request.

import (
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// healthz answers 200 with the snapshot served.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	snap := s.cur.Load()
	writeJSON(w, http.StatusOK, map[string]any{
		"status": "ok", "nodes": len(snap.set.Nodes), "revision": snap.revision,
		"source_revision": snap.sourceRevision, "loaded": snap.loaded.UTC().Format(time.RFC3339),
	})
}

// buckets of the latency histogram, in seconds.
var buckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

type routeStats struct {
	counts map[int]uint64 // by status
	hist   []uint64       // per bucket, not cumulative; the last is +Inf
	sum    float64
	n      uint64
}

type metrics struct {
	mu       sync.Mutex
	routes   map[string]*routeStats
	reloads  map[bool]uint64
	revision string
	source   string
	nodes    int
	serial   uint64
	loaded   time.Time
}

func newMetrics() *metrics {
	return &metrics{routes: map[string]*routeStats{}, reloads: map[bool]uint64{}}
}

func (m *metrics) served(s *snapshot) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.revision, m.source, m.nodes, m.serial, m.loaded = s.revision, s.sourceRevision, len(s.set.Nodes), s.serial, s.loaded
}

func (m *metrics) reload(ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reloads[ok]++
}

func (m *metrics) request(route string, status int, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rs := m.routes[route]
	if rs == nil {
		rs = &routeStats{counts: map[int]uint64{}, hist: make([]uint64, len(buckets)+1)}
		m.routes[route] = rs
	}
	rs.counts[status]++
	sec := d.Seconds()
	i, _ := slices.BinarySearch(buckets, sec)
	rs.hist[i]++
	rs.sum += sec
	rs.n++
}

// labelValue escapes a label value of the text exposition format.
func labelValue(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request) {
	m := s.metrics
	var b strings.Builder
	m.mu.Lock()
	routes := make([]string, 0, len(m.routes))
	for r := range m.routes {
		routes = append(routes, r)
	}
	slices.Sort(routes)
	b.WriteString("# HELP hieracc_serve_requests_total HTTP requests answered, by route and status.\n# TYPE hieracc_serve_requests_total counter\n")
	for _, rt := range routes {
		rs := m.routes[rt]
		codes := make([]int, 0, len(rs.counts))
		for c := range rs.counts {
			codes = append(codes, c)
		}
		slices.Sort(codes)
		for _, c := range codes {
			fmt.Fprintf(&b, "hieracc_serve_requests_total{route=\"%s\",code=\"%d\"} %d\n", labelValue(rt), c, rs.counts[c])
		}
	}
	b.WriteString("# HELP hieracc_serve_request_duration_seconds Time to answer a request, by route.\n# TYPE hieracc_serve_request_duration_seconds histogram\n")
	for _, rt := range routes {
		rs := m.routes[rt]
		var cum uint64
		for i, le := range buckets {
			cum += rs.hist[i]
			fmt.Fprintf(&b, "hieracc_serve_request_duration_seconds_bucket{route=\"%s\",le=\"%g\"} %d\n", labelValue(rt), le, cum)
		}
		cum += rs.hist[len(buckets)]
		fmt.Fprintf(&b, "hieracc_serve_request_duration_seconds_bucket{route=\"%s\",le=\"+Inf\"} %d\n", labelValue(rt), cum)
		fmt.Fprintf(&b, "hieracc_serve_request_duration_seconds_sum{route=\"%s\"} %g\n", labelValue(rt), rs.sum)
		fmt.Fprintf(&b, "hieracc_serve_request_duration_seconds_count{route=\"%s\"} %d\n", labelValue(rt), rs.n)
	}
	b.WriteString("# HELP hieracc_serve_reloads_total Readings of the folder after a compile, by result.\n# TYPE hieracc_serve_reloads_total counter\n")
	fmt.Fprintf(&b, "hieracc_serve_reloads_total{result=\"ok\"} %d\nhieracc_serve_reloads_total{result=\"error\"} %d\n", m.reloads[true], m.reloads[false])
	b.WriteString("# HELP hieracc_serve_revision_info The revision of the bundles served (\"\" when they differ).\n# TYPE hieracc_serve_revision_info gauge\n")
	fmt.Fprintf(&b, "hieracc_serve_revision_info{revision=\"%s\",source_revision=\"%s\"} 1\n", labelValue(m.revision), labelValue(m.source))
	b.WriteString("# HELP hieracc_serve_nodes Nodes with a bundle in the folder served.\n# TYPE hieracc_serve_nodes gauge\n")
	fmt.Fprintf(&b, "hieracc_serve_nodes %d\n", m.nodes)
	b.WriteString("# HELP hieracc_serve_snapshot_loaded_timestamp_seconds When the folder served was read.\n# TYPE hieracc_serve_snapshot_loaded_timestamp_seconds gauge\n")
	fmt.Fprintf(&b, "hieracc_serve_snapshot_loaded_timestamp_seconds %d\n", m.loaded.Unix())
	m.mu.Unlock()
	b.WriteString("# HELP hieracc_serve_open_bundles Bundles kept open.\n# TYPE hieracc_serve_open_bundles gauge\n")
	fmt.Fprintf(&b, "hieracc_serve_open_bundles %d\n", s.cache.len())
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.Write([]byte(b.String()))
}

// recorder keeps the status and size of an answer.
type recorder struct {
	http.ResponseWriter
	status int
	size   int
}

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.size += n
	return n, err
}

// instrument counts, times and logs the requests of one route. The log
// names the path and the client's certificate; never a value.
func (s *Server) instrument(route string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &recorder{ResponseWriter: w}
		h.ServeHTTP(rec, r)
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		d := time.Since(start)
		s.metrics.request(route, rec.status, d)
		s.log.LogAttrs(r.Context(), slog.LevelInfo, "request",
			slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", rec.status), slog.Int("bytes", rec.size),
			slog.Duration("duration", d), slog.String("remote", r.RemoteAddr),
			slog.String("client", who(r)))
	})
}
