/* tapp/util.h - how TAPP's functions are exported (visible from a library
 * built with hidden visibility). */
#ifndef TAPP_UTIL_H_
#define TAPP_UTIL_H_

#ifdef __cplusplus
#define TAPP_EXPORT extern "C" __attribute__((visibility("default")))
#else
#define TAPP_EXPORT __attribute__((visibility("default")))
#endif

#endif
