//go:build !unix

package regular

// openNonBlock: no named pipes to wait on here.
const openNonBlock = 0
