package eyaml

// KeyErr is the problem with the decrypter's keys (a file that cannot be
// read, a key that does not parse, an option not defined), which every
// encrypted block fails with; nil when the keys are usable.
func (d *Decrypter) KeyErr() error {
	if d == nil {
		return nil
	}
	return d.err
}
