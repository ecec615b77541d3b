//go:build !race

package sessions

// raceOn: the race detector is on (it slows the emulator several times).
const raceOn = false
