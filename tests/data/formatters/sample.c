/* A small ring buffer, written for the formatter tests (unsorted includes, macros, long strings). */
#include <string.h>
#include <stdlib.h>
#include "ring.h"
#include <stdio.h>

#define RING_MIN(a,b) ((a)<(b)?(a):(b))
#  define RING_GROW(n) ((n)*2+1)
#define RING_NAME "ring buffer of bytes, used by the formatter tests"

typedef struct { unsigned char *data; size_t head, tail, size; } ring_t;

enum ring_state { RING_EMPTY, RING_PARTIAL, RING_FULL };

static size_t ring_used(const ring_t *r) { return r->tail>=r->head ? r->tail-r->head : r->size-r->head+r->tail; }

int ring_init(ring_t *r, size_t size)
{
    r->data = malloc(size); if (!r->data) { fprintf(stderr, "%s: could not allocate %zu bytes for the ring buffer data\n", RING_NAME, size); return -1; }
    r->head = r->tail = 0; r->size = size;
    return 0;
}

size_t ring_write(ring_t *r, const unsigned char *src, size_t n) {
  size_t room = r->size - ring_used(r) - 1, done = 0;
  n = RING_MIN(n, room);
  while (done < n) { r->data[r->tail] = src[done++]; r->tail = (r->tail + 1) % r->size; }
  return done;
}

enum ring_state ring_state(const ring_t *r) {
  size_t used = ring_used(r);
  if (used == 0) return RING_EMPTY;
  else if (used + 1 == r->size) return RING_FULL;
  switch (used % 3) { case 0: case 1: break; default: used <<= 1; }
  return RING_PARTIAL;
}
