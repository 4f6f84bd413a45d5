package bundle

import "syscall"

// noFollow refuses to open a file through a symlink.
const noFollow = syscall.O_NOFOLLOW
