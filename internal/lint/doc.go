// Package lint holds checks of the module's own source, run as tests: they
// parse the module's hand-written Go files and fail on shapes the project
// does not allow (see globals_test.go). It has no API.
package lint
