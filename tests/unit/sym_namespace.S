/*
 * sym_namespace.S - a function described by DWARF as rustc writes it, for
 * check_symbolize: its own compilation unit (DW_LANG_Rust, no address
 * ranges table) whose concrete subprogram sits inside a namespace, with an
 * inlined call in it; both named by Rust linkage names, the outer one in
 * the v0 mangling, the inner one in the legacy one.
 *
 *   unit "sym_namespace.rs"
 *     namespace "cpttst"
 *       subprogram cpttst::outer   [sym_ns_begin, sym_ns_end)
 *         inlined cpttst::inner    [sym_ns_inl_begin, sym_ns_inl_end)
 *       subprogram cpttst::inner   (abstract: inlined only)
 *
 * sym_ns_addrs[] gives the test the function's start and the inlined
 * range's start at run time.
 */
	.text
	.globl	sym_ns_outer
	.type	sym_ns_outer, @function
sym_ns_outer:
.Lbegin:
	nop
	nop
.Linl_begin:
	nop
	nop
	nop
.Linl_end:
	nop
	ret
.Lend:
	.size	sym_ns_outer, .Lend - sym_ns_outer

	.section .data.rel.ro, "aw"
	.globl	sym_ns_addrs
	.type	sym_ns_addrs, @object
	.p2align 3
sym_ns_addrs:
	.quad	.Lbegin
	.quad	.Linl_begin
	.size	sym_ns_addrs, 16

/* DW_TAG, DW_AT and DW_FORM values of DWARF 4 */
#define TAG_compile_unit	0x11
#define TAG_namespace		0x39
#define TAG_subprogram		0x2e
#define TAG_inlined_subroutine	0x1d
#define AT_name			0x03
#define AT_low_pc		0x11
#define AT_high_pc		0x12
#define AT_language		0x13
#define AT_inline		0x20
#define AT_abstract_origin	0x31
#define AT_linkage_name		0x6e
#define FORM_addr		0x01
#define FORM_data1		0x0b
#define FORM_data2		0x05
#define FORM_data4		0x06
#define FORM_string		0x08
#define FORM_ref4		0x13
#define LANG_Rust		0x1c

	.section .debug_abbrev, "", @progbits
.Labbrev:
	.uleb128 1			/* the unit */
	.uleb128 TAG_compile_unit
	.byte	1			/* children */
	.uleb128 AT_name
	.uleb128 FORM_string
	.uleb128 AT_language
	.uleb128 FORM_data2
	.uleb128 AT_low_pc
	.uleb128 FORM_addr
	.uleb128 AT_high_pc
	.uleb128 FORM_data4
	.byte	0, 0
	.uleb128 2			/* a namespace */
	.uleb128 TAG_namespace
	.byte	1
	.uleb128 AT_name
	.uleb128 FORM_string
	.byte	0, 0
	.uleb128 3			/* a function with code */
	.uleb128 TAG_subprogram
	.byte	1
	.uleb128 AT_low_pc
	.uleb128 FORM_addr
	.uleb128 AT_high_pc
	.uleb128 FORM_data4
	.uleb128 AT_linkage_name
	.uleb128 FORM_string
	.uleb128 AT_name
	.uleb128 FORM_string
	.byte	0, 0
	.uleb128 4			/* an inlined call */
	.uleb128 TAG_inlined_subroutine
	.byte	0
	.uleb128 AT_abstract_origin
	.uleb128 FORM_ref4
	.uleb128 AT_low_pc
	.uleb128 FORM_addr
	.uleb128 AT_high_pc
	.uleb128 FORM_data4
	.byte	0, 0
	.uleb128 5			/* a function only inlined */
	.uleb128 TAG_subprogram
	.byte	0
	.uleb128 AT_linkage_name
	.uleb128 FORM_string
	.uleb128 AT_name
	.uleb128 FORM_string
	.uleb128 AT_inline
	.uleb128 FORM_data1
	.byte	0, 0
	.byte	0

	.section .debug_info, "", @progbits
.Lcu:
	.long	.Lcu_end - .Lcu_version	/* unit length */
.Lcu_version:
	.short	4
	.long	.Labbrev
	.byte	8			/* address size */
	.uleb128 1
	.asciz	"sym_namespace.rs"
	.short	LANG_Rust
	.quad	.Lbegin
	.long	.Lend - .Lbegin
	.uleb128 2
	.asciz	"cpttst"
	.uleb128 3
	.quad	.Lbegin
	.long	.Lend - .Lbegin
	.asciz	"_RNvCs1234_6cpttst5outer"
	.asciz	"outer"
	.uleb128 4
	.long	.Linner - .Lcu
	.quad	.Linl_begin
	.long	.Linl_end - .Linl_begin
	.byte	0			/* end of outer's children */
.Linner:
	.uleb128 5
	.asciz	"_ZN6cpttst5inner17h0123456789abcdefE"
	.asciz	"inner"
	.byte	1			/* DW_INL_inlined */
	.byte	0			/* end of the namespace's children */
	.byte	0			/* end of the unit's children */
.Lcu_end:

	.section .note.GNU-stack, "", @progbits
