/*
 * fuzz_parser.c - libFuzzer target for the parser (`make fuzz`).
 * Besides not crashing, it checks two properties on every input:
 *   - a failure always carries TC_EINPUT and a non-empty message;
 *   - an accepted contraction's normal form parses back to the same normal form;
 *   - what tc_parse accepts, tc_parse_written (the text as written) accepts too,
 *     with no operand conjugated.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parser/parser.h"

static void check(int cond)
{
    if (!cond)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';

    /* Line 1 is the contraction, the rest sizes - the -f file layout. */
    char *sizes_text = strchr(text, '\n');
    if (sizes_text)
        *sizes_text++ = '\0';

    tc_contraction c, sized;
    tc_sizes sizes;
    tc_error err, warning;
    memset(&sizes, 0, sizeof sizes);
    tc_written w;
    int written = tc_parse_written(text, &w, &err) == TC_OK;
    check(written || (err.code == TC_EINPUT && err.message[0] != '\0'));
    if (tc_parse(text, &c, &err) != TC_OK) {
        check(err.code == TC_EINPUT && err.message[0] != '\0');
    } else {
        char form[1024], again_form[1024];
        tc_contraction again;
        tc_contraction_format(&c, form, sizeof form);
        check(written && !w.tensor[1].conj && !w.tensor[2].conj);
        check(tc_parse(form, &again, &err) == TC_OK);
        tc_contraction_format(&again, again_form, sizeof again_form);
        check(strcmp(form, again_form) == 0);
        if (sizes_text && tc_parse_sizes(sizes_text, 2, &sizes, &err) == TC_OK &&
            tc_contraction_set_sizes(&c, &sizes, &sized, &err, &warning) == TC_OK) {
            check(sized.has_sizes);
            (void)tc_contraction_hash(&sized);
        }
    }
    if (sizes_text && tc_parse_sizes(sizes_text, 2, &sizes, &err) != TC_OK)
        check(err.code == TC_EINPUT && err.message[0] != '\0');
    free(text);
    return 0;
}
