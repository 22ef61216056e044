/* type.c - the element type table's rows (type.h). */
#include "type.h"

#include <float.h>

const tc_type_row tc_type_table[TC_TYPE_COUNT] = {
    [TC_TYPE_D] = {'d', "double", "double", "real(c_double)", "c_double", 8, 0, 1, 8, DBL_EPSILON},
    [TC_TYPE_S] = {'s', "float", "float", "real(c_float)", "c_float", 4, 0, 1, 4, FLT_EPSILON},
    [TC_TYPE_Z] = {'z', "double complex", "double", "complex(c_double_complex)",
                   "c_double_complex", 16, 1, 2, 8, DBL_EPSILON},
    [TC_TYPE_C] = {'c', "float complex", "float", "complex(c_float_complex)",
                   "c_float_complex", 8, 1, 2, 4, FLT_EPSILON},
};

const tc_type_row *tc_type_row_of(tc_type t)
{
    return (unsigned)t < TC_TYPE_COUNT ? &tc_type_table[t] : &tc_type_table[TC_TYPE_D];
}

int tc_type_from_letter(char c)
{
    for (int t = 0; t < TC_TYPE_COUNT; t++)
        if (tc_type_table[t].letter == c || tc_type_table[t].letter + ('A' - 'a') == c)
            return t;
    return -1;
}

int64_t tc_type_words(tc_type t, int64_t n)
{
    int64_t b = tc_type_row_of(t)->bytes;
    return b == 4 ? n / 2 + n % 2 : n * (b / 8);
}

double tc_type_flop_factor(tc_type t)
{
    return tc_type_row_of(t)->is_complex ? 4.0 : 1.0;
}
