//go:build race

package format

// raceDetector: the race detector makes code allocate that otherwise does not.
const raceDetector = true
