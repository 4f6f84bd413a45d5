package watch

// Keys of the per-backend view: j or the down arrow selects the next
// backend, k or the up arrow the previous one, x X-rays the selected
// backend (x again on the same backend closes the X-ray), b shows or hides
// the view. The arrows arrive as ESC [ B and ESC [ A.
const (
	keyDown  = 'j'
	keyUp    = 'k'
	keyXRay  = 'x'
	keyBack  = 'b'
	keyEsc   = 0x1b
	arrowUp  = 'A'
	arrowDwn = 'B'
)

// backendKeys is the per-backend view's share of the view state.
type backendKeys struct {
	hidden   bool
	selected int // PID
	esc      int // 1 after ESC, 2 after ESC [
	// xrayPID is the backend whose X-ray is shown or running (0: none);
	// xray its lines.
	xrayPID int
	xray    []string
	// askXRay is set by x until Run starts the X-ray.
	askXRay int
}

// pressBackend applies a key of the per-backend view to the frame shown;
// ok is false for other keys.
func (v *backendKeys) pressBackend(k byte, f Frame) bool {
	switch {
	case k == keyEsc:
		v.esc = 1
		return true
	case v.esc == 1 && k == '[':
		v.esc = 2
		return true
	case v.esc == 2 && (k == arrowUp || k == arrowDwn):
		v.esc = 0
		v.move(f, map[byte]int{arrowUp: -1, arrowDwn: 1}[k])
		return true
	}
	v.esc = 0
	switch k {
	case keyDown, 'J':
		v.move(f, 1)
	case keyUp, 'K':
		v.move(f, -1)
	case keyBack, 'B':
		v.hidden = !v.hidden
	case keyXRay, 'X':
		v.toggleXRay(f)
	default:
		return false
	}
	return true
}

// move selects the backend dir places down (up when negative) from the
// selected one, in the frame's order.
func (v *backendKeys) move(f Frame, dir int) {
	bs := f.Backends
	if len(bs) == 0 {
		return
	}
	at := 0
	cur := selectedPID(bs, v.selected)
	for i, b := range bs {
		if b.PID == cur {
			at = i
		}
	}
	at = max(0, min(len(bs)-1, at+dir))
	v.selected = bs[at].PID
}

// toggleXRay asks for the selected backend's X-ray, or closes the one
// shown when it is that backend's.
func (v *backendKeys) toggleXRay(f Frame) {
	pid := selectedPID(f.Backends, v.selected)
	if pid == 0 {
		return
	}
	if v.xrayPID == pid && v.askXRay == 0 {
		v.xrayPID, v.xray = 0, nil
		return
	}
	v.selected, v.askXRay = pid, pid
}
