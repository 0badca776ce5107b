//go:build !linux

package main

import (
	"errors"
	"os"
)

func isTerminal(*os.File) bool { return false }

func makeRaw(*os.File) (func(), error) { return nil, errors.New("raw terminal mode needs Linux") }

func screenWidth(*os.File) int { return 80 }
