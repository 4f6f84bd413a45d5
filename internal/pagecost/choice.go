package pagecost

import "github.com/dbmem/dbmem/internal/measure"

// OptionsFor returns the Measure options for the user's method
// (measure.Auto for an unknown one).
func OptionsFor(m measure.Method) Options {
	switch m {
	case measure.Fast:
		return Options{Method: MethodFast, Fallback: MethodStatus}
	case measure.Smaps:
		return Options{Method: MethodSmaps}
	case measure.Status:
		return Options{Method: MethodStatus}
	}
	return Options{Method: MethodFast, Fallback: MethodSmaps}
}
