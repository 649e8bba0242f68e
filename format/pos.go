package format

import "strconv"

// Pos is where something is in an input file, as messages show it: the
// file (as the user named it, or relative to its layer's root) and the
// 1-based line and column in it (the column counts characters). Each part
// is zero when unknown. Every "file:line:col" hieracc prints is a Pos's
// String.
type Pos struct {
	File   string
	Line   int
	Column int
}

// String is "file:line:col", "file:line" or "file", as far as the position
// is known, or "" when its file is unknown.
func (p Pos) String() string {
	if p.File == "" {
		return ""
	}
	s := p.File
	if p.Line > 0 {
		s += ":" + strconv.Itoa(p.Line)
		if p.Column > 0 {
			s += ":" + strconv.Itoa(p.Column)
		}
	}
	return s
}

// IsValid reports whether the position names a file (String is "" when it
// does not).
func (p Pos) IsValid() bool { return p.File != "" }
