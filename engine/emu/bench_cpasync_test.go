package emu

import "testing"

// A cp.async pipeline: 16 CTAs of 256 threads; each thread keeps 4 commit
// groups of 4 copies in flight over 64 iterations (wait_group 3, then a
// read of the oldest group's word).
func BenchmarkCpAsyncPipeline(b *testing.B) {
	src := `.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 in, .param .u64 out) {
	.shared .align 16 .u32 sm[4096];
	.reg .u32 %r<16>; .reg .u64 %rd<8>; .reg .pred %p<3>;
	ld.param.u64 %rd1, [in];
	ld.param.u64 %rd2, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 4;
	add.u64 %rd4, %rd1, %rd3;
	mov.u32 %r5, sm;
	shl.b32 %r6, %r1, 2;
	add.u32 %r6, %r5, %r6;
	mov.u32 %r10, 0;
	mov.u32 %r11, 0;
L:
	and.b32 %r7, %r10, 3;
	shl.b32 %r7, %r7, 12;
	add.u32 %r8, %r6, %r7;
	cp.async.ca.shared.global [%r8], [%rd4], 4;
	cp.async.ca.shared.global [%r8+1024], [%rd4+1024], 4;
	cp.async.ca.shared.global [%r8+2048], [%rd4+2048], 4;
	cp.async.ca.shared.global [%r8+3072], [%rd4+3072], 4;
	cp.async.commit_group;
	cp.async.wait_group 3;
	ld.shared.u32 %r9, [%r6];
	add.u32 %r11, %r11, %r9;
	add.u32 %r10, %r10, 1;
	setp.lt.u32 %p1, %r10, 64;
	@%p1 bra L;
	cp.async.wait_all;
	add.u64 %rd5, %rd2, %rd3;
	st.global.u32 [%rd5], %r11;
	ret;
}`
	benchLaunch(b, src, [3]int{16, 1, 1}, [3]int{256, 1, 1}, []int{4096 * 4, 1024}, nil)
}
