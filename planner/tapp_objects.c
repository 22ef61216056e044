/*
 * tapp_objects.c - TAPP's errors, handles, executors, statuses, attributes
 * and tensor infos (include/tapp/) over tcgen: handles and executors
 * carry nothing yet (one implementation, this process), an execution
 * gives no status object, no attributes are defined.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/tapp_impl.h"

#define INFO_MAGIC 0x74617070u   /* "tapp" */
#define HANDLE_MAGIC 0x68616e64u /* "hand" */
#define EXEC_MAGIC 0x65786563u   /* "exec" */

static _Thread_local struct {
    TAPP_error code;
    char text[512];
} last;

TAPP_error tc_tapp_fail(TAPP_error code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    last.code = code;
    vsnprintf(last.text, sizeof last.text, fmt, ap);
    va_end(ap);
    return code;
}

bool TAPP_check_success(TAPP_error error)
{
    return error == TC_TAPP_OK;
}

size_t TAPP_explain_error(TAPP_error error, size_t maxlen, char *message)
{
    static const char *const meaning[] = {
        "success",
        "an index of A and B has two extents",
        "an index of A and D has two extents",
        "an index of B and D has two extents",
        "an index of D is in neither A nor B",
        "C and D have different numbers of modes",
        "C and D have different indices",
        "C and D have different extents",
        "D has two elements at one address",
        "an index appears twice in A with two extents",
        "an index appears twice in B with two extents",
        "an index appears twice in D with two extents",
        "C is NULL but beta is not zero",
        "a negative number of modes",
        "a negative extent",
    };
    static const char *const own[] = {"invalid argument", "not supported by tcgen yet",
                                      "out of memory", "tcgen could not plan the product"};
    char text[700];
    const char *m = error >= 0 && error <= TC_TAPP_ENEG_EXTENT ? meaning[error]
                    : error >= TC_TAPP_EARGUMENT && error <= TC_TAPP_EPLAN
                        ? own[error - TC_TAPP_EARGUMENT]
                        : "unknown error code";
    int n = error == last.code && error != TC_TAPP_OK && last.text[0]
                ? snprintf(text, sizeof text, "%s: %s", m, last.text)
                : snprintf(text, sizeof text, "%s", m);
    size_t len = n < 0 ? 0 : (size_t)n;
    if (maxlen > 0 && message) {
        size_t k = len < maxlen - 1 ? len : maxlen - 1;
        memcpy(message, text, k);
        message[k] = '\0';
    }
    return len;
}

/* ---- handles, executors, statuses, attributes ---------------------------- */

static TAPP_error make_token(intptr_t *out, uint32_t magic, const char *what)
{
    if (!out)
        return tc_tapp_fail(TC_TAPP_EARGUMENT, "%s: NULL pointer", what);
    uint32_t *t = malloc(sizeof *t);
    if (!t)
        return tc_tapp_fail(TC_TAPP_EMEMORY, "%s", what);
    *t = magic;
    *out = (intptr_t)t;
    return TC_TAPP_OK;
}

static TAPP_error free_token(intptr_t token, uint32_t magic, const char *what)
{
    uint32_t *t = (uint32_t *)token;
    if (!t || *t != magic)
        return tc_tapp_fail(TC_TAPP_EARGUMENT, "%s: not one of tcgen's", what);
    *t = 0;
    free(t);
    return TC_TAPP_OK;
}

TAPP_error TAPP_create_handle(TAPP_handle *handle)
{
    return make_token(handle, HANDLE_MAGIC, "TAPP_create_handle");
}

TAPP_error TAPP_destroy_handle(TAPP_handle handle)
{
    return free_token(handle, HANDLE_MAGIC, "TAPP_destroy_handle");
}

TAPP_error TAPP_create_executor(TAPP_executor *exec)
{
    return make_token(exec, EXEC_MAGIC, "TAPP_create_executor");
}

TAPP_error TAPP_destroy_executor(TAPP_executor exec)
{
    return free_token(exec, EXEC_MAGIC, "TAPP_destroy_executor");
}

TAPP_error TAPP_destroy_status(TAPP_status status)
{
    (void)status; /* executions give no status object: 0 */
    return TC_TAPP_OK;
}

TAPP_error TAPP_attr_set(TAPP_attr attr, TAPP_key key, void *value)
{
    (void)attr, (void)value;
    return tc_tapp_fail(TC_TAPP_EUNSUPPORTED, "attribute %d: tcgen defines no attributes", key);
}

TAPP_error TAPP_attr_get(TAPP_attr attr, TAPP_key key, void **value)
{
    (void)value;
    return TAPP_attr_set(attr, key, NULL);
}

TAPP_error TAPP_attr_clear(TAPP_attr attr, TAPP_key key)
{
    return TAPP_attr_set(attr, key, NULL);
}

/* ---- tensor infos --------------------------------------------------------- */

const tc_tapp_info *tc_tapp_info_of(TAPP_tensor_info info, const char *which)
{
    const tc_tapp_info *t = (const tc_tapp_info *)info;
    if (!t || t->magic != INFO_MAGIC) {
        tc_tapp_fail(TC_TAPP_EARGUMENT, "%s is not a tensor info of TAPP_create_tensor_info",
                     which);
        return NULL;
    }
    return t;
}

static TAPP_error check_extents(int nmode, const int64_t *extents, const char *fn)
{
    for (int k = 0; k < nmode; k++)
        if (extents[k] < 0)
            return tc_tapp_fail(TC_TAPP_ENEG_EXTENT, "%s: extent %lld of mode %d", fn,
                                (long long)extents[k], k);
    return TC_TAPP_OK;
}

TAPP_error TAPP_create_tensor_info(TAPP_tensor_info *info, TAPP_datatype type, int nmode,
                                   const int64_t *extents, const int64_t *strides)
{
    if (!info || (nmode > 0 && (!extents || !strides)))
        return tc_tapp_fail(TC_TAPP_EARGUMENT, "TAPP_create_tensor_info: NULL pointer");
    if (nmode < 0)
        return tc_tapp_fail(TC_TAPP_ENEG_NMODE, "TAPP_create_tensor_info: %d modes", nmode);
    if (nmode > TC_TAPP_MAX_MODES)
        return tc_tapp_fail(TC_TAPP_EUNSUPPORTED, "TAPP_create_tensor_info: %d modes (tcgen "
                                                  "takes at most %d)", nmode, TC_TAPP_MAX_MODES);
    TAPP_error e = check_extents(nmode, extents, "TAPP_create_tensor_info");
    if (e != TC_TAPP_OK)
        return e;
    tc_tapp_info *t = calloc(1, sizeof *t);
    if (!t)
        return tc_tapp_fail(TC_TAPP_EMEMORY, "TAPP_create_tensor_info");
    t->magic = INFO_MAGIC;
    t->type = type;
    t->nmode = nmode;
    for (int k = 0; k < nmode; k++)
        t->extent[k] = extents[k], t->stride[k] = strides[k];
    *info = (TAPP_tensor_info)t;
    return TC_TAPP_OK;
}

TAPP_error TAPP_destroy_tensor_info(TAPP_tensor_info info)
{
    tc_tapp_info *t = (tc_tapp_info *)tc_tapp_info_of(info, "TAPP_destroy_tensor_info's info");
    if (!t)
        return TC_TAPP_EARGUMENT;
    t->magic = 0;
    free(t);
    return TC_TAPP_OK;
}

int TAPP_get_nmodes(TAPP_tensor_info info)
{
    const tc_tapp_info *t = tc_tapp_info_of(info, "TAPP_get_nmodes's info");
    return t ? t->nmode : -1;
}

TAPP_error TAPP_set_nmodes(TAPP_tensor_info info, int nmodes)
{
    tc_tapp_info *t = (tc_tapp_info *)tc_tapp_info_of(info, "TAPP_set_nmodes's info");
    if (!t)
        return TC_TAPP_EARGUMENT;
    if (nmodes < 0 || nmodes > TC_TAPP_MAX_MODES)
        return tc_tapp_fail(nmodes < 0 ? TC_TAPP_ENEG_NMODE : TC_TAPP_EUNSUPPORTED,
                            "TAPP_set_nmodes: %d modes", nmodes);
    for (int k = t->nmode; k < nmodes; k++) /* new modes: extent 1 */
        t->extent[k] = 1, t->stride[k] = 0;
    t->nmode = nmodes;
    return TC_TAPP_OK;
}

void TAPP_get_extents(TAPP_tensor_info info, int64_t *extents)
{
    const tc_tapp_info *t = tc_tapp_info_of(info, "TAPP_get_extents's info");
    for (int k = 0; t && extents && k < t->nmode; k++)
        extents[k] = t->extent[k];
}

TAPP_error TAPP_set_extents(TAPP_tensor_info info, const int64_t *extents)
{
    tc_tapp_info *t = (tc_tapp_info *)tc_tapp_info_of(info, "TAPP_set_extents's info");
    if (!t || (!extents && t->nmode > 0))
        return t ? tc_tapp_fail(TC_TAPP_EARGUMENT, "TAPP_set_extents: NULL") : TC_TAPP_EARGUMENT;
    TAPP_error e = check_extents(t->nmode, extents, "TAPP_set_extents");
    for (int k = 0; e == TC_TAPP_OK && k < t->nmode; k++)
        t->extent[k] = extents[k];
    return e;
}

void TAPP_get_strides(TAPP_tensor_info info, int64_t *strides)
{
    const tc_tapp_info *t = tc_tapp_info_of(info, "TAPP_get_strides's info");
    for (int k = 0; t && strides && k < t->nmode; k++)
        strides[k] = t->stride[k];
}

TAPP_error TAPP_set_strides(TAPP_tensor_info info, const int64_t *strides)
{
    tc_tapp_info *t = (tc_tapp_info *)tc_tapp_info_of(info, "TAPP_set_strides's info");
    if (!t || (!strides && t->nmode > 0))
        return t ? tc_tapp_fail(TC_TAPP_EARGUMENT, "TAPP_set_strides: NULL") : TC_TAPP_EARGUMENT;
    for (int k = 0; k < t->nmode; k++)
        t->stride[k] = strides[k];
    return TC_TAPP_OK;
}
