package puppetdiff

// The minimiser: a greedy shrink of a case's text, files first, then blocks
// of lines (a line with the more-indented lines under it: a key with its
// value, a hierarchy level, a list item), parents before their children.

import (
	"strings"
)

// Minimize returns the smallest case it finds, by removing files and blocks
// of lines from c, for which still holds; still(c) is assumed. It calls still
// at most budget times (every call asks Puppet: about two seconds).
func Minimize(c *Case, budget int, still func(*Case) bool) *Case {
	m := &minimizer{cur: c.clone(), budget: budget, still: still}
	for changed := true; changed && m.budget > 0; {
		changed = false
		for _, p := range sortedKeys(m.cur.Files) {
			if m.needed(p) {
				continue
			}
			cand := m.cur.clone()
			delete(cand.Files, p)
			if m.try(cand) {
				changed = true
			}
		}
		for _, p := range sortedKeys(m.cur.Files) {
			if m.shrinkLines(p) {
				changed = true
			}
		}
	}
	return m.cur
}

type minimizer struct {
	cur    *Case
	budget int
	still  func(*Case) bool
}

// needed: the facts of a checked node stay (hieracc compiles only nodes
// with facts; Puppet needs them too).
func (m *minimizer) needed(path string) bool {
	for _, c := range m.cur.Checks {
		if path == "nodes/"+c.Node+".yaml" {
			return true
		}
	}
	return false
}

func (m *minimizer) try(cand *Case) bool {
	if m.budget <= 0 {
		return false
	}
	m.budget--
	if m.still(cand) {
		m.cur = cand
		return true
	}
	return false
}

// shrinkLines removes what blocks of path's lines it can; true when any.
func (m *minimizer) shrinkLines(path string) bool {
	changed := false
	for i := 0; ; {
		lines := strings.SplitAfter(m.cur.Files[path], "\n")
		if i >= len(lines) || m.budget <= 0 {
			return changed
		}
		end := blockEnd(lines, i)
		if strings.TrimSpace(lines[i]) == "---" || strings.TrimSpace(lines[i]) == "" {
			i++
			continue
		}
		cand := m.cur.clone()
		cand.Files[path] = strings.Join(append(append([]string(nil), lines[:i]...), lines[end:]...), "")
		if m.try(cand) {
			changed = true
			continue // the next block now starts at i
		}
		i++
	}
}

// blockEnd returns the end of the block starting at line i: it and the
// lines after it that are more indented (a list item's content is indented
// past its dash).
func blockEnd(lines []string, i int) int {
	j := i + 1
	for j < len(lines) && strings.TrimSpace(lines[j]) != "" && indent(lines[j]) > indent(lines[i]) {
		j++
	}
	return j
}

func indent(line string) int {
	return len(line) - len(strings.TrimLeft(line, " "))
}
