// Package loadtest measures the playground server end to end over its
// websocket protocol (docs/protocol.md), on loopback only: the real server
// (package web with the sessions manager, wired as `ptxplay serve` wires
// them) runs in-process on 127.0.0.1 and gorilla websocket clients drive it.
//
// BenchmarkWebsocketStep and BenchmarkWebsocketStepRound measure the step
// round trip (p50/p99) and the size of the state replies for a 256-thread
// kernel; BenchmarkWebsocketStepBack the seek round trip to random steps
// within the last 10,000 steps of the history. TestLoad holds many
// concurrent sessions stepping (warp and round steps, back, seek) for
// PTXPLAY_LOAD_SECONDS (default 3), every reply checked:
//
//	go test ./web/loadtest -run '^$' -bench . -benchtime 200x
//	PTXPLAY_LOAD_SECONDS=60 go test ./web/loadtest -run TestLoad -count 1 -v
//
// BenchmarkStepUnderRunLoad measures fairness: 63 sessions loop `run` on a
// heavy kernel while a 64th makes single steps and /healthz is probed; it
// reports both p50/p99. TestAbuse (skipped unless -abuse.duration is set)
// adds huge globals, cache pinning and silent sockets and checks the RSS and
// the latency targets:
//
//	go test ./web/loadtest -run '^$' -bench StepUnderRunLoad -benchtime 300x
//	go test ./web/loadtest -run Abuse -abuse.duration 60s -v
//
// The package has no code outside its tests.
package loadtest
