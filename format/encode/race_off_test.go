//go:build !race

package encode

// raceDetector: the race detector makes code allocate that otherwise does not.
const raceDetector = false
