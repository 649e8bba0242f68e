package share

import (
	"hash/maphash"
	"slices"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ruby"
)

// Loc is a location a key's data lies in, as a signature names it: the
// layer (0 global, 1 environment, 2 a module, 3 a module's
// default_hierarchy), level and location, and the data file there
// (numbered in the compile).
type Loc struct {
	Layer, Level, Loc, File uint32
}

// KeySig describes where a key's data lies for a node: the shape of its
// layers (see ShapeID), its merge, its convert_to and, for every
// location holding the key (loc(0) to loc(locs-1)), where it is and its
// file. Two nodes with the same signature read the same entries for the
// key. The signature is the worker's until its next call.
func (w *Worker) KeySig(shape uint32, m format.Merge, conv []format.Value, locs int, loc func(i int) Loc) []uint32 {
	s := append(w.scratch[:0], shape, w.mergeID(m), w.convertID(conv))
	for i := range locs {
		l := loc(i)
		s = append(s, l.Layer, l.Level, l.Loc, l.File)
	}
	w.scratch = s
	return s
}

// hashSig hashes a key's name and signature. Collisions are harmless: an
// entry is used only when its name and signature are equal too.
func hashSig(name string, s []uint32) uint64 {
	h := maphash.String(seed, name)
	for _, x := range s {
		h = (h ^ uint64(x)) * 0x100000001b3 // FNV-1a step over whole words
	}
	return h
}

// mergeID numbers each distinct merge configuration, for key signatures.
func (w *Worker) mergeID(m format.Merge) uint32 {
	id, ok := w.mergeIDs[m]
	if !ok {
		if w.mergeIDs == nil {
			w.mergeIDs = map[format.Merge]uint32{}
		}
		id = uint32(len(w.mergeIDs) + 1)
		w.mergeIDs[m] = id
	}
	return id
}

// convertID numbers a key's convert_to (0 for none), so that keys are
// shared only between nodes whose lookup_options convert them alike: specs
// with the same Ruby inspection are told apart by format.Identical.
func (w *Worker) convertID(spec []format.Value) uint32 {
	if len(spec) == 0 {
		return 0
	}
	k := ruby.Inspect(spec)
	for _, c := range w.convertIDs[k] {
		if slices.EqualFunc(c.spec, spec, format.Identical) {
			return c.id
		}
	}
	if w.convertIDs == nil {
		w.convertIDs = map[string][]convertSpec{}
	}
	w.convertCount++
	w.convertIDs[k] = append(w.convertIDs[k], convertSpec{spec, w.convertCount})
	return w.convertCount
}

// convertSpec is a convert_to a worker numbered (see convertID).
type convertSpec struct {
	spec []format.Value
	id   uint32
}

// shapeID numbers a shape's text (see Node.Shape).
func (w *Worker) shapeID(text []byte) uint32 {
	id, ok := w.shapes[string(text)]
	if !ok {
		if w.shapes == nil {
			w.shapes = map[string]uint32{}
		}
		id = uint32(len(w.shapes) + 1)
		w.shapes[string(text)] = id
	}
	return id
}
