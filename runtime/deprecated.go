package runtime

// The constructors of a Trust before Open, OpenBytes and NewReloader took
// options: kept while other branches still call them.

// OpenWith is Open(path, t).
//
// Deprecated: use Open(path, t).
func OpenWith(path string, t Trust) (*Bundle, error) { return Open(path, t) }

// OpenBytesWith is OpenBytes(data, t).
//
// Deprecated: use OpenBytes(data, t).
func OpenBytesWith(data []byte, t Trust) (*Bundle, error) { return OpenBytes(data, t) }

// NewReloaderWith is NewReloader(path, t).
//
// Deprecated: use NewReloader(path, t).
func NewReloaderWith(path string, t Trust) (*Reloader, error) { return NewReloader(path, t) }
