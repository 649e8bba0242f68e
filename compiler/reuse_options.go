package compiler

// Sharing work across nodes (see reuse.go), the lookup_options stage: the
// nodes whose lookup_options come from the same files share one result
// (options.go computes it).

import (
	"fmt"
	"strconv"
)

// optionsSig identifies the data lookup_options come from: every location
// holding the key, per layer, and the layer's shape. nil means the
// options depend on the node (interpolation, or a layer the node's facts
// broke) and must be computed afresh. The signature is the worker's until
// its next call.
func (w *worker) optionsSig(layers ...*layerRun) []byte {
	b := w.optSig[:0]
	defer func() { w.optSig = b }()
	for _, lr := range layers {
		b = append(b, '|')
		if lr == nil || !lr.hier.Present {
			continue
		}
		if lr.err != nil {
			if lr.conf.err == nil {
				return nil // a node-specific failure (its facts broke a path)
			}
			b = fmt.Appendf(b, "E%p", lr.conf)
			continue
		}
		for li, lvl := range lr.files {
			b = strconv.AppendInt(append(b, 'L'), int64(len(lvl)), 10)
			for fi, df := range lvl {
				if df == nil {
					continue
				}
				if i, ok := df.index[lookupOptionsKey]; ok || df.err != nil {
					if ok && df.interp[i] {
						return nil
					}
					b = strconv.AppendInt(append(b, ','), int64(li), 10)
					b = strconv.AppendInt(append(b, '.'), int64(fi), 10)
					b = strconv.AppendUint(append(b, '.'), uint64(df.id), 10)
				}
			}
		}
	}
	if b == nil {
		b = []byte{} // not "depends on the node"
	}
	return b
}

// options returns the cached result for sig (see optionsSig), computing it
// once.
func (w *worker) options(sig []byte, compute func() *optsResult) *optsResult {
	if sig == nil || w.noSharing {
		return compute()
	}
	if r, ok := w.opts[string(sig)]; ok {
		return r
	}
	key := string(sig) // compute may ask for other signatures
	r := compute()
	r.shared = true
	w.opts[key] = r
	return r
}
