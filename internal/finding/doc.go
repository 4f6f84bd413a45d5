// Package finding holds the types dbmem's verdicts are made of: a Finding
// (a problem, its evidence, why it matters, its fix), a Setting (a value to
// set, with its formula), their Severity, Target and Evidence, and the
// engine names. It is a leaf: renderers and outputs depend on it without
// pulling in the engines that compute findings (internal/advise). There is
// one name for each: advise and every caller use finding.X directly.
package finding
