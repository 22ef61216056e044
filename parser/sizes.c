/* sizes.c - "a=400,b=400", "a=b=c=400" and the -f file format. */
#include "parser.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast/error.h"
#include "builder.h"

#define TC_FILE_MAX (1 << 20) /* a contraction file is a few lines */

static int is_sep(char ch) { return ch == ',' || ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n'; }
static int is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n'; }
static int is_alpha(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); }
static int is_digit(char ch) { return ch >= '0' && ch <= '9'; }

/* Up to 40 bytes of s for a message, with anything but printable ASCII
 * written as \xNN so that a message never carries raw bytes. */
static const char *quoted(const char *s, size_t len, char *buf, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < len && i < 40 && k + 5 < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch >= 0x20 && ch < 0x7f)
            buf[k++] = (char)ch;
        else
            k += (size_t)snprintf(buf + k, n - k, "\\x%02x", ch);
    }
    buf[k] = '\0';
    return buf;
}

static tc_status add_entry(tc_sizes *sizes, const char *name, size_t len, int64_t value,
                           int line, int column, tc_error *err)
{
    char n[TC_NAME_MAX];
    memcpy(n, name, len);
    n[len] = '\0';
    for (int e = 0; e < sizes->count; e++) {
        const tc_size_entry *old = &sizes->entry[e];
        if (strcmp(old->name, n) != 0)
            continue;
        if (old->size == value)
            return TC_OK;
        return tc_error_set(err, TC_EINPUT, line, column,
                            "index '%s' is given two sizes: %lld (at %d:%d) and %lld", n,
                            (long long)old->size, old->line, old->column, (long long)value);
    }
    if (sizes->count == TC_MAX_SIZES)
        return tc_error_set(err, TC_EINPUT, line, column, "more than %d sizes given",
                            TC_MAX_SIZES);
    tc_size_entry *e = &sizes->entry[sizes->count++];
    strcpy(e->name, n);
    e->size = value;
    e->line = line;
    e->column = column;
    return TC_OK;
}

/* Parses the value at s[*pos] (a positive integer below 2^63). */
static tc_status parse_value(const char *s, size_t *pos, const char *name, size_t name_len,
                             int line, int64_t *value, tc_error *err)
{
    size_t start = *pos, end = start;
    while (s[end] && !is_sep(s[end]))
        end++;
    *pos = end;
    int col = (int)start + 1;
    int len = (int)(end - start);
    if (len == 0)
        return tc_error_set(err, TC_EINPUT, line, col, "missing size after '%.*s='",
                            (int)name_len, name);
    char q[200];
    for (size_t i = start; i < end; i++)
        if (!is_digit(s[i]))
            return tc_error_set(err, TC_EINPUT, line, col,
                                "size of '%.*s' must be a positive integer, found '%s'",
                                (int)name_len, name, quoted(s + start, (size_t)len, q, sizeof q));
    errno = 0;
    long long v = strtoll(s + start, NULL, 10);
    if (errno == ERANGE)
        return tc_error_set(err, TC_EINPUT, line, col,
                            "size of '%.*s' does not fit in 63 bits: '%s'", (int)name_len,
                            name, quoted(s + start, (size_t)len, q, sizeof q));
    if (v == 0)
        return tc_error_set(err, TC_EINPUT, line, col,
                            "size of '%.*s' is 0; sizes must be positive", (int)name_len, name);
    *value = (int64_t)v;
    return TC_OK;
}

/* Skips blanks and at most one ',' between items: "a=4,,b=4" and a ','
 * with no item before or after it are refused, not read as nothing. */
static tc_status skip_separator(const char *s, size_t *pos, int first, int line, tc_error *err)
{
    while (is_space(s[*pos]))
        (*pos)++;
    if (s[*pos] != ',')
        return TC_OK;
    size_t comma = *pos;
    (*pos)++;
    while (is_space(s[*pos]))
        (*pos)++;
    if (first || s[*pos] == ',' || s[*pos] == '\0')
        return tc_error_set(err, TC_EINPUT, line, (int)comma + 1,
                            "empty item in sizes: a ',' %s", first ? "before the first size" :
                            s[*pos] == ',' ? "followed by another ','" : "after the last size");
    return TC_OK;
}

tc_status tc_parse_sizes(const char *s, int line, tc_sizes *sizes, tc_error *err)
{
    size_t pos = 0;
    tc_error_clear(err);
    for (int first = 1;; first = 0) {
        if (skip_separator(s, &pos, first, line, err) != TC_OK)
            return TC_EINPUT;
        if (!s[pos])
            return TC_OK;
        /* a group: name { '=' name } '=' value */
        size_t names[TC_MAX_SIZES], lens[TC_MAX_SIZES];
        int n = 0;
        for (;;) {
            size_t start = pos;
            char q[16];
            if (!is_alpha(s[pos]))
                return tc_error_set(err, TC_EINPUT, line, (int)pos + 1,
                                    "expected an index name in sizes, found '%s'",
                                    quoted(s + pos, 1, q, sizeof q));
            while (is_alpha(s[pos]) || is_digit(s[pos]) || s[pos] == '_')
                pos++;
            if (pos - start >= TC_NAME_MAX)
                return tc_error_set(err, TC_EINPUT, line, (int)start + 1,
                                    "index name is longer than %d characters", TC_NAME_MAX - 1);
            if (n == TC_MAX_SIZES)
                return tc_error_set(err, TC_EINPUT, line, (int)start + 1,
                                    "more than %d sizes given", TC_MAX_SIZES);
            names[n] = start;
            lens[n++] = pos - start;
            while (is_space(s[pos]))
                pos++;
            if (s[pos] != '=')
                return tc_error_set(err, TC_EINPUT, line, (int)pos + 1,
                                    "expected '=' after '%.*s' in sizes", (int)lens[n - 1],
                                    s + names[n - 1]);
            pos++;
            while (is_space(s[pos]))
                pos++;
            if (!is_alpha(s[pos]))
                break;
        }
        int64_t value = 0;
        tc_status st = parse_value(s, &pos, s + names[n - 1], lens[n - 1], line, &value, err);
        for (int i = 0; st == TC_OK && i < n; i++)
            st = add_entry(sizes, s + names[i], lens[i], value, line, (int)names[i] + 1, err);
        if (st != TC_OK)
            return st;
    }
}

/* Removes a '#' comment and reports whether anything but blanks is left. */
static int strip_comment(char *line)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    for (char *p = line; *p; p++)
        if (!is_space(*p))
            return 1;
    return 0;
}

tc_status tc_parse_file(const char *path, tc_contraction *out, tc_sizes *sizes, tc_error *err)
{
    tc_error_clear(err);
    FILE *f = fopen(path, "rb");
    if (!f)
        return tc_error_set(err, TC_EINPUT, 0, 0, "cannot open '%s': %s", path, strerror(errno));
    char *text = malloc(TC_FILE_MAX + 1);
    if (!text) {
        fclose(f);
        return tc_error_set(err, TC_ERESOURCE, 0, 0, "out of memory reading '%s'", path);
    }
    size_t n = fread(text, 1, TC_FILE_MAX + 1, f);
    int bad = ferror(f);
    fclose(f);
    tc_status st = TC_OK;
    if (bad)
        st = tc_error_set(err, TC_EINPUT, 0, 0, "cannot read '%s'", path);
    else if (n > TC_FILE_MAX)
        st = tc_error_set(err, TC_EINPUT, 0, 0, "'%s' is larger than %d bytes", path,
                          TC_FILE_MAX);
    else if (memchr(text, '\0', n))
        st = tc_error_set(err, TC_EINPUT, 0, 0, "'%s' is not a text file (it holds a NUL byte)",
                          path);
    text[n < TC_FILE_MAX ? n : TC_FILE_MAX] = '\0';

    int have_contraction = 0, lineno = 0;
    for (char *line = text, *next; st == TC_OK && line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        lineno++;
        if (!strip_comment(line))
            continue;
        if (!have_contraction) {
            st = tc_parse_at(line, lineno, out, err);
            have_contraction = 1;
        } else {
            st = tc_parse_sizes(line, lineno, sizes, err);
        }
    }
    if (st == TC_OK && !have_contraction)
        st = tc_error_set(err, TC_EINPUT, 0, 0, "'%s' holds no contraction", path);
    free(text);
    return st;
}
