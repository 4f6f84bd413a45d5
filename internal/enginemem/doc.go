// Package enginemem holds the memory arithmetic every database engine
// shares, in one shape: the worst case (what every connection could take at
// once) and the huge page need (what the engine asks of the pool). The
// engine packages (postgres through advise, mysql) compute their own terms
// into these types; advise judges them with the same checks and plan sizes
// the pool and the budget from them. It imports nothing of dbmem but units.
package enginemem
