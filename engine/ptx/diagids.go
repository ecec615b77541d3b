package ptx

// DiagID is the stable identifier of a kind of diagnostic: a short
// kebab-case name shown as "error[undefined-label]" by `ptxplay check`, sent
// as "id" to the editor and listed with a one-line description in IDs. An
// ID, once published, is never renamed or reused for another kind
// (testdata/diag_ids.golden holds every ID ever published; a test checks
// the table against it).
type DiagID string

// The IDs of the front end (lexer, parser), the compiler, the launch-spec
// check and the race and memory checker. Each must be in IDs.
const (
	// Lexer.
	DiagUnterminatedComment DiagID = "unterminated-comment"
	DiagUnterminatedString  DiagID = "unterminated-string"
	DiagInvalidCharacter    DiagID = "invalid-character"
	DiagMalformedNumber     DiagID = "malformed-number"

	// Parser.
	DiagSyntax             DiagID = "syntax-error"
	DiagMissingSemicolon   DiagID = "missing-semicolon"
	DiagUnclosedBrace      DiagID = "unclosed-brace"
	DiagNestingTooDeep     DiagID = "nesting-too-deep"
	DiagUnknownDirective   DiagID = "unknown-directive"
	DiagInvalidDeclaration DiagID = "invalid-declaration"
	DiagInvalidAddressSize DiagID = "invalid-address-size"
	DiagInvalidConstExpr   DiagID = "invalid-constant-expression"
	DiagTooManyErrors      DiagID = "too-many-errors"
	DiagCannotRead         DiagID = "cannot-read"

	// Compiler: the module.
	DiagMissingVersion      DiagID = "missing-version"
	DiagVersionNotFirst     DiagID = "version-not-first"
	DiagMissingTarget       DiagID = "missing-target"
	DiagTargetNotNext       DiagID = "target-not-after-version"
	DiagAddressSize32       DiagID = "address-size-32"
	DiagRedeclared          DiagID = "redeclared"
	DiagFunctionRedefined   DiagID = "function-redefined"
	DiagMissingSize         DiagID = "missing-size"
	DiagExternWithoutDef    DiagID = "extern-without-definition"
	DiagEmulatorLimit       DiagID = "emulator-limit"
	DiagInvalidStateSpace   DiagID = "invalid-state-space"
	DiagInvalidInitializer  DiagID = "invalid-initializer"
	DiagUndefinedName       DiagID = "undefined-name"
	DiagUndefinedFunction   DiagID = "undefined-function"
	DiagUndefinedLabel      DiagID = "undefined-label"
	DiagLabelNotVisible     DiagID = "label-not-visible"
	DiagDuplicateLabel      DiagID = "duplicate-label"
	DiagInvalidBranchTarget DiagID = "invalid-branchtargets"
	DiagNoFunctionBody      DiagID = "no-function-body"

	// Compiler: instructions.
	DiagUnknownInstruction     DiagID = "unknown-instruction"
	DiagUnsupportedInstruction DiagID = "unsupported-instruction"
	DiagUnsupportedForm        DiagID = "unsupported-form"
	DiagUnknownModifier        DiagID = "unknown-modifier"
	DiagInvalidModifier        DiagID = "invalid-modifier"
	DiagInvalidForm            DiagID = "invalid-form"
	DiagOperandCount           DiagID = "operand-count"
	DiagTypeModifiers          DiagID = "type-modifiers"
	DiagInvalidOperand         DiagID = "invalid-operand"
	DiagNotPredicate           DiagID = "guard-not-predicate"
	DiagInvalidCall            DiagID = "invalid-call"
	DiagNonISAModifier         DiagID = "non-isa-modifier"

	// Launch spec (engine/launch Check).
	DiagSpecInvalid   DiagID = "spec-invalid"
	DiagSpecEntry     DiagID = "spec-entry"
	DiagSpecConfig    DiagID = "spec-launch-config"
	DiagSpecParamCnt  DiagID = "spec-param-count"
	DiagSpecParam     DiagID = "spec-param-mismatch"
	DiagSpecParamHint DiagID = "spec-param-advice"

	// Race and memory checker (engine/analysis warning kinds).
	DiagReadAfterWrite      DiagID = "read-after-write"
	DiagWriteAfterRead      DiagID = "write-after-read"
	DiagWriteAfterWrite     DiagID = "write-after-write"
	DiagAsyncRead           DiagID = "cp-async-read-before-wait"
	DiagUninitShared        DiagID = "uninitialised-shared-read"
	DiagUninitGlobal        DiagID = "uninitialised-global-read"
	DiagMbarrierPlain       DiagID = "mbarrier-plain-access"
	DiagMbarrierInitWaiting DiagID = "mbarrier-init-while-waiting"
	DiagProxyFence          DiagID = "missing-proxy-fence"
	DiagAsyncWriteRead      DiagID = "async-write-read-before-wait"
	DiagWgmmaInFlight       DiagID = "wgmma-register-in-flight"
	DiagWgmmaFence          DiagID = "wgmma-missing-fence"
)

// DiagInfo describes one diagnostic ID.
type DiagInfo struct {
	ID DiagID `json:"id"`
	// Desc says in one line what the diagnostic reports.
	Desc string `json:"desc"`
}

// IDs is the table of diagnostic IDs, in published order: a new ID is
// appended (and to testdata/diag_ids.golden), none is renamed or removed.
var IDs = []DiagInfo{
	{DiagUnterminatedComment, "a /* comment is not closed before the end of the file"},
	{DiagUnterminatedString, "a string literal is not closed on its line"},
	{DiagInvalidCharacter, "a character that cannot start a PTX token"},
	{DiagMalformedNumber, "an integer or floating-point literal that is malformed or overflows 64 bits"},
	{DiagSyntax, "the text does not follow PTX syntax here (what was expected is named)"},
	{DiagMissingSemicolon, "a statement is not ended by ';'"},
	{DiagUnclosedBrace, "a '{' is not closed"},
	{DiagNestingTooDeep, "blocks or expressions nest deeper than the parser allows"},
	{DiagUnknownDirective, "a directive PTX does not have"},
	{DiagInvalidDeclaration, "a declaration with no type, two types or two state spaces, or a declarator not allowed"},
	{DiagInvalidAddressSize, ".address_size is not 32 or 64"},
	{DiagInvalidConstExpr, "a constant expression that cannot be evaluated or whose value is not allowed there"},
	{DiagTooManyErrors, "checking stopped after the maximum number of errors"},
	{DiagCannotRead, "ptxplay check could not read the file"},
	{DiagMissingVersion, "the module does not begin with .version"},
	{DiagVersionNotFirst, ".version is not the first statement of the module"},
	{DiagMissingTarget, ".version is not followed by .target"},
	{DiagTargetNotNext, ".target does not come right after .version"},
	{DiagAddressSize32, ".address_size 32: 32-bit pointers are truncated to the emulator's 64-bit addresses"},
	{DiagRedeclared, "a name declared twice in one scope (a note shows the first declaration)"},
	{DiagFunctionRedefined, "a function given two bodies (a note shows the first)"},
	{DiagMissingSize, "an array or kernel parameter whose size is not given"},
	{DiagExternWithoutDef, "an .extern variable with no definition in the module"},
	{DiagEmulatorLimit, "a size or count past one of the emulator's limits"},
	{DiagInvalidStateSpace, "a variable or initializer not allowed in its state space"},
	{DiagInvalidInitializer, "an initializer that does not fit its variable"},
	{DiagUndefinedName, "a register, variable or predicate that is not declared"},
	{DiagUndefinedFunction, "a call of a function that is not declared"},
	{DiagUndefinedLabel, "a branch to a label that is not defined in the function"},
	{DiagLabelNotVisible, "a label defined in a { } block that does not enclose the branch (a note shows the label)"},
	{DiagDuplicateLabel, "a label defined twice in the same block (a note shows the first definition)"},
	{DiagInvalidBranchTarget, "a .branchtargets list that is empty, unlabelled or names something other than a label"},
	{DiagNoFunctionBody, "a called function has no body in the module: a thread that calls it faults"},
	{DiagUnknownInstruction, "an opcode, or a combination of opcode and modifiers, PTX does not have"},
	{DiagUnsupportedInstruction, "an instruction the emulator recognises but does not execute: a thread that reaches it faults"},
	{DiagUnsupportedForm, "a form of an instruction the emulator does not execute"},
	{DiagUnknownModifier, "a modifier the instruction does not know"},
	{DiagInvalidModifier, "a modifier not valid for this instruction"},
	{DiagInvalidForm, "a combination of modifiers, types or operands not valid for this instruction"},
	{DiagOperandCount, "an instruction given the wrong number of operands"},
	{DiagTypeModifiers, "an instruction given no type modifier or the wrong number of them"},
	{DiagInvalidOperand, "an operand of the wrong kind, type or width for its place"},
	{DiagNotPredicate, "an instruction guard that is not a predicate register"},
	{DiagInvalidCall, "a call whose target, arguments or results do not fit the function"},
	{DiagNonISAModifier, "a modifier the PTX ISA does not define for this form, accepted and ignored"},
	{DiagSpecInvalid, "the launch spec itself is invalid"},
	{DiagSpecEntry, "the launch spec names no kernel of the module, or a kernel the module does not have"},
	{DiagSpecConfig, "the launch spec's grid, block or dynamic shared memory does not fit the kernel"},
	{DiagSpecParamCnt, "the launch spec gives the wrong number of kernel parameters"},
	{DiagSpecParam, "a launch spec parameter the kernel cannot take (its size or kind)"},
	{DiagSpecParamHint, "a launch spec parameter that runs but is unlikely to be what the kernel expects"},
	{DiagReadAfterWrite, "race: a thread reads shared memory another thread wrote without a barrier between"},
	{DiagWriteAfterRead, "race: a thread writes shared memory another thread read without a barrier between"},
	{DiagWriteAfterWrite, "race: two threads write the same shared memory without a barrier between"},
	{DiagAsyncRead, "a read of a cp.async destination before the copy was waited for"},
	{DiagUninitShared, "a read of shared memory no thread of the CTA wrote"},
	{DiagUninitGlobal, "a load of global memory the launch did not initialise and the kernel did not write"},
	{DiagMbarrierPlain, "an ordinary load, store or atomic of an initialised mbarrier's bytes"},
	{DiagMbarrierInitWaiting, "mbarrier.init of an mbarrier that threads are waiting on"},
	{DiagProxyFence, "an asynchronous copy or a wgmma.mma_async operand reads shared memory a thread wrote with no fence.proxy.async since the write"},
	{DiagAsyncWriteRead, "a read of shared memory an asynchronous copy wrote or has in flight, before a wait on the mbarrier phase the copy completes"},
	{DiagWgmmaInFlight, "an instruction reads or writes an accumulator or A register of a wgmma.mma_async before a wgmma.wait_group waits for it"},
	{DiagWgmmaFence, "a wgmma.mma_async reads an accumulator or A register written since the last wgmma.fence"},
}

var idIndex = func() map[DiagID]int {
	m := make(map[DiagID]int, len(IDs))
	for i, d := range IDs {
		m[d.ID] = i
	}
	return m
}()

// KnownID reports whether id is in the table.
func KnownID(id DiagID) bool {
	_, ok := idIndex[id]
	return ok
}

// Describe returns the one-line description of id ("" if unknown).
func Describe(id DiagID) string {
	if i, ok := idIndex[id]; ok {
		return IDs[i].Desc
	}
	return ""
}
