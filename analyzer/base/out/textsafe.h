/*
 * Names (paths, programs, arguments) as ldprof shows them: a name may hold
 * any byte but NUL, while JSON needs UTF-8 and a terminal must not receive
 * control characters. Both escapings are reversible (docs/json.md,
 * docs/design.md's "Names").
 */
#ifndef LDPROF_TEXTSAFE_H
#define LDPROF_TEXTSAFE_H

#include <stddef.h>

/*
 * The length (1-4) of the valid UTF-8 sequence at s, or 0 when the bytes
 * there are not one (RFC 3629: no overlong forms, no surrogates, nothing
 * above U+10FFFF). s is NUL-terminated; a NUL ends any sequence.
 */
size_t utf8_seq_len(const char *s);

/*
 * s fit for a terminal: s itself when it holds only printable characters
 * (any valid UTF-8 but controls), else a copy in double quotes with C
 * escapes, as git quotes a path: \n \t \r \" \\, and every other control
 * character, DEL, C1 control and invalid byte as \ooo in octal
 * ("a\nb\033[31m" for a, newline, b, ESC [31m). The copy lives until eight
 * more calls (enough for the arguments of one printf); NULL stays NULL.
 */
const char *term_safe(const char *s);
/* The same escapes without the quotes, for a sentence that holds names (a note). */
const char *term_clean(const char *s);

#endif
