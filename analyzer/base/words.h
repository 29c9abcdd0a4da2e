/* Splitting a command line into words the way sh does, without expansion. */
#ifndef LDPROF_WORDS_H
#define LDPROF_WORDS_H

#include <stddef.h>

#include "base/util.h"

/*
 * Blanks separate words; '...' keeps everything literally, "..." keeps all
 * but \" and \\, and a backslash outside quotes escapes the next character.
 * Nothing is expanded. *words is one allocation (strings included), NULL
 * terminated; -EINVAL with err for an unterminated quote.
 */
int split_words(const char *line, char ***words, size_t *n, struct errbuf *err);

#endif
