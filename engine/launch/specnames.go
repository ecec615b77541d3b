// Package launch is the launch contract of PTX Playground: it prepares a
// machine from a program and a launch spec (engine/launchspec: the kernel,
// its grid and block, global buffers with their initial contents and the
// kernel parameters), runs it, and reports the JSON result (status, fault,
// buffer contents, statistics). The CLI (ptxplay run), the web sessions
// and share links all use it; the format is documented in
// docs/launch-spec.md.
package launch

import "github.com/ptxplayground/ptxplay/engine/launchspec"

// The launch spec's types and functions are engine/launchspec's (which
// does not import the emulator); these names keep launch.Spec and the
// rest for the packages that prepare and run launches.
type (
	Spec   = launchspec.Spec
	Limits = launchspec.Limits
	Buffer = launchspec.Buffer
	Init   = launchspec.Init
	Iota   = launchspec.Iota
	Random = launchspec.Random
	Param  = launchspec.Param
	Value  = launchspec.Value
)

// SpecVersion is the version of the launch-spec format this package reads.
const SpecVersion = launchspec.SpecVersion

var (
	// DefaultLimits are the limits ParseSpec and Prepare apply.
	DefaultLimits = launchspec.DefaultLimits
	// ParseSpec reads a spec (launchspec.ParseSpec).
	ParseSpec = launchspec.ParseSpec
	// ParseSpecLimits is ParseSpec with explicit limits.
	ParseSpecLimits = launchspec.ParseSpecLimits
	// BufferParam, ScalarParam and BytesParam build parameters in Go code.
	BufferParam = launchspec.BufferParam
	ScalarParam = launchspec.ScalarParam
	BytesParam  = launchspec.BytesParam
)

// The spec's element encoding, for preparing launches and writing results.
var (
	lookupType      = launchspec.LookupType
	decodeHex       = launchspec.DecodeHex
	encodeValue     = launchspec.EncodeValue
	appendValueJSON = launchspec.AppendValueJSON
	appendFloat     = launchspec.AppendFloat
	appendBitsHex   = launchspec.AppendBitsHex
	appendHex32     = launchspec.AppendHex32
	useHalfTable    = launchspec.UseHalfTable
	bufWhere        = launchspec.BufWhere
	checkInit       = launchspec.CheckInit
	fillBuffer      = launchspec.FillBuffer
)

func getElem(data []byte, i, size int) uint64 { return launchspec.GetElem(data, i, size) }

func putElem(data []byte, i, size int, bits uint64) { launchspec.PutElem(data, i, size, bits) }
