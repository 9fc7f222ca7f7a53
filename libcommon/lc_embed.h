/* libcommon/lc_embed.h: a file built with the program (a BPF object) in its
 * read-only data, as the bytes sym[0 .. sym_end - sym). */
#ifndef LC_EMBED_H
#define LC_EMBED_H

/* At file scope: embeds the file at path (relative to where the compiler
 * runs: the tree's root) and declares sym and sym_end. */
#define LC_EMBED(sym, path)                            \
	__asm__(".pushsection .rodata\n"               \
		".balign 8\n"                          \
		".globl " #sym "\n" #sym ":\n"         \
		".incbin \"" path "\"\n"               \
		".globl " #sym "_end\n" #sym "_end:\n" \
		".popsection\n");                      \
	extern const unsigned char sym[], sym##_end[]

#endif /* LC_EMBED_H */
