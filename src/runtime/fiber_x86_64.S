/* SPDX-License-Identifier: MIT */
/*
 * pr_fiber_swap(void **save_sp, void *new_sp): the x86-64 context switch.
 *
 * Only the callee-saved registers of the SysV ABI need saving: the caller
 * of pr_fiber_swap() has already spilled everything else.  The new stack
 * holds the same six registers and a return address, laid out by
 * pr_fiber_prepare() for a fresh fiber.
 */
	.text
	.globl	pr_fiber_swap
	.type	pr_fiber_swap, @function
	.p2align 4
pr_fiber_swap:
	.cfi_startproc
	pushq	%rbp
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movq	%rsp, (%rdi)
	movq	%rsi, %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	ret
	.cfi_endproc
	.size	pr_fiber_swap, .-pr_fiber_swap

	.section .note.GNU-stack,"",@progbits
