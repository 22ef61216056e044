/*
 * tcgen.h - the one public header of tcgen.
 *
 * tcgen takes a binary tensor contraction in Einstein notation, enumerates
 * every algorithm that computes it as a loop nest around one BLAS kernel,
 * predicts their runtimes with cache-aware micro-benchmarks, and runs or
 * emits the fastest.
 *
 * Every library function that can fail returns a tc_status and, when given a
 * non-NULL tc_error, fills it with a message that says what is wrong and,
 * for text input, where (1-based line and column; 0 when not applicable).
 * The library never prints and never exits.
 */
#ifndef TCGEN_H
#define TCGEN_H

#ifdef __cplusplus
extern "C" {
#endif

#define TC_VERSION "0.1.0"

/* Status codes double as the command's exit codes (DESIGN.md §5). */
typedef enum tc_status {
    TC_OK = 0,
    TC_EINPUT = 1,    /* malformed or invalid contraction, sizes, file    */
    TC_EUSAGE = 2,    /* a caller error: bad argument, unknown option     */
    TC_ERESOURCE = 3, /* out of memory, BLAS library not found, I/O error */
    TC_EINTERNAL = 4  /* a bug in tcgen                                   */
} tc_status;

#define TC_ERROR_MESSAGE_MAX 512

typedef struct tc_error {
    tc_status code;
    int line;   /* 1-based position in the input text, 0 if none */
    int column;
    char message[TC_ERROR_MESSAGE_MAX];
} tc_error;

/* The library's version string, TC_VERSION. */
const char *tc_version(void);

/* A short English name of a status code ("bad input", ...). */
const char *tc_status_name(tc_status s);

#ifdef __cplusplus
}
#endif
#endif /* TCGEN_H */
