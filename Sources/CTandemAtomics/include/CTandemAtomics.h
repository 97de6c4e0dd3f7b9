#ifndef C_TANDEM_ATOMICS_H
#define C_TANDEM_ATOMICS_H

// Atomic operations on one 64-bit word, through the compiler's __atomic builtins, for every platform the
// package builds on (Swift's own `Atomic` needs iOS 18 / macOS 15). `order` is one of the __ATOMIC_*
// values; the Swift side passes only orders valid for the operation.

#include <stdbool.h>
#include <stdint.h>

static inline int64_t tandem_atomic_load(int64_t *word, int order) {
    return __atomic_load_n(word, order);
}

static inline void tandem_atomic_store(int64_t *word, int64_t value, int order) {
    __atomic_store_n(word, value, order);
}

static inline int64_t tandem_atomic_exchange(int64_t *word, int64_t value, int order) {
    return __atomic_exchange_n(word, value, order);
}

/// Returns whether the word held `*expected` and now holds `desired`; otherwise `*expected` is what it held.
static inline bool tandem_atomic_compare_exchange(int64_t *word, int64_t *expected, int64_t desired, int success, int failure) {
    return __atomic_compare_exchange_n(word, expected, desired, false, success, failure);
}

static inline int64_t tandem_atomic_fetch_add(int64_t *word, int64_t value, int order) {
    return __atomic_fetch_add(word, value, order);
}

static inline int64_t tandem_atomic_fetch_or(int64_t *word, int64_t value, int order) {
    return __atomic_fetch_or(word, value, order);
}

static inline int64_t tandem_atomic_fetch_and(int64_t *word, int64_t value, int order) {
    return __atomic_fetch_and(word, value, order);
}

#endif
