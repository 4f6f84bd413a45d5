package apply

import (
	"fmt"
	"strings"
)

// diffContext is the number of unchanged lines around each change.
const diffContext = 3

// maxDiffCells bounds the LCS table; larger inputs are shown as a whole
// replacement.
const maxDiffCells = 4 << 20

// unifiedDiff returns a unified diff of a and b ("" when equal), with the
// header lines given.
func unifiedDiff(a, b, fromHeader, toHeader string) string {
	if a == b {
		return ""
	}
	x, y := splitLines(a), splitLines(b)
	ops := diffOps(x, y)
	var out strings.Builder
	out.WriteString("--- " + fromHeader + "\n+++ " + toHeader + "\n")
	for _, h := range hunks(ops) {
		writeHunk(&out, ops[h[0]:h[1]])
	}
	return out.String()
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	l := strings.SplitAfter(s, "\n")
	if l[len(l)-1] == "" {
		l = l[:len(l)-1]
	}
	return l
}

// op is one line of the edit script: ' ' kept, '-' removed, '+' added,
// with its line numbers (1-based) in a and b.
type op struct {
	kind byte
	text string
	ai   int
	bi   int
}

// diffOps computes a shortest edit script by longest common subsequence.
func diffOps(x, y []string) []op {
	n, m := len(x), len(y)
	if n*m > maxDiffCells {
		return replaceAll(x, y)
	}
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []op
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && x[i] == y[j]:
			ops = append(ops, op{' ', x[i], i + 1, j + 1})
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', x[i], i + 1, j})
			i++
		default:
			ops = append(ops, op{'+', y[j], i, j + 1})
			j++
		}
	}
	return ops
}

func replaceAll(x, y []string) []op {
	var ops []op
	for i, l := range x {
		ops = append(ops, op{'-', l, i + 1, 0})
	}
	for j, l := range y {
		ops = append(ops, op{'+', l, len(x), j + 1})
	}
	return ops
}

// hunks groups changed lines with their context into [start, end) ranges
// of ops; changes closer than twice the context share a hunk.
func hunks(ops []op) [][2]int {
	var out [][2]int
	for i, o := range ops {
		if o.kind == ' ' {
			continue
		}
		start, end := max(0, i-diffContext), min(len(ops), i+diffContext+1)
		if n := len(out); n > 0 && start <= out[n-1][1] {
			out[n-1][1] = end
		} else {
			out = append(out, [2]int{start, end})
		}
	}
	return out
}

func writeHunk(b *strings.Builder, ops []op) {
	var aStart, bStart, aN, bN int
	for _, o := range ops {
		if o.kind != '+' {
			if aN == 0 {
				aStart = o.ai
			}
			aN++
		}
		if o.kind != '-' {
			if bN == 0 {
				bStart = o.bi
			}
			bN++
		}
	}
	if aN == 0 {
		aStart = ops[0].ai
	}
	if bN == 0 {
		bStart = ops[0].bi
	}
	fmt.Fprintf(b, "@@ -%d,%d +%d,%d @@\n", aStart, aN, bStart, bN)
	for _, o := range ops {
		b.WriteString(string(o.kind) + o.text)
		if !strings.HasSuffix(o.text, "\n") {
			b.WriteString("\n\\ No newline at end of file\n")
		}
	}
}
