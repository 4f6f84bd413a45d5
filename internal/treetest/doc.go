// Package treetest writes small file trees for tests: a fake /proc, /sys
// or /etc under a temporary root, read back through a linux.FS; and a
// copy of a recorded host whose reads hang (HungHost).
package treetest
