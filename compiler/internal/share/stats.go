package share

// Stats counts how a worker compiled nodes and keys, for tests.
type Stats struct {
	Slices, NoSlice       int // nodes
	Static, Slot, General int // keys: a slot's static result, other slot keys, the general path
	InPlace               int // static keys found in place in the key memory
	KeptInPlace           int // other kept results found in place there
	FirstInPlace          int // template first keys found in place there
	Templated             int // slot keys whose contributions came from a template
	Looked                int // static results taken that looked up other keys
	Released              int // per-node files released from the file cache
}

// Add adds o's counts to s.
func (s *Stats) Add(o Stats) {
	s.Released += o.Released
	s.Slices += o.Slices
	s.NoSlice += o.NoSlice
	s.Static += o.Static
	s.InPlace += o.InPlace
	s.KeptInPlace += o.KeptInPlace
	s.FirstInPlace += o.FirstInPlace
	s.Slot += o.Slot
	s.General += o.General
	s.Templated += o.Templated
	s.Looked += o.Looked
}
