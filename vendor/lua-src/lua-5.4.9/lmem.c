/*
** $Id: lmem.c $
** Interface to Memory Manager
** See Copyright Notice in lua.h
*/

#define lmem_c
#define LUA_CORE

#include "lprefix.h"


#include <stddef.h>
#include <string.h>

#include "lua.h"

#include "ldebug.h"
#include "ldo.h"
#include "lgc.h"
#include "lmem.h"
#include "lobject.h"
#include "lstate.h"



/*
** About the realloc function:
** void *frealloc (void *ud, void *ptr, size_t osize, size_t nsize);
** ('osize' is the old size, 'nsize' is the new size)
**
** - frealloc(ud, p, x, 0) frees the block 'p' and returns NULL.
** Particularly, frealloc(ud, NULL, 0, 0) does nothing,
** which is equivalent to free(NULL) in ISO C.
**
** - frealloc(ud, NULL, x, s) creates a new block of size 's'
** (no matter 'x'). Returns NULL if it cannot create the new block.
**
** - otherwise, frealloc(ud, b, x, y) reallocates the block 'b' from
** size 'x' to size 'y'. Returns NULL if it cannot reallocate the
** block to the new size.
*/


/*
** agentbox: every block allocated here carries, in a header of OWNERHDR
** bytes before it (16, so blocks keep the allocator's alignment), the
** owner that was current when it was allocated or last resized
** ('g->owner', set by the host around each agent's call). 'g->held[o]'
** is the bytes of the blocks owner 'o' holds: a block is counted against
** the owner that made it until it is freed, whoever runs when the
** collector frees it. The sizes counted are Lua's, without the header.
** Blocks allocated outside this file (the main state, lauxlib's buffer
** boxes) have no header and never come here.
*/
#define OWNERHDR	16

#define blockowner(raw)	(*cast(unsigned int *, (raw)))

#define addheld(g,o,n) \
  { if ((o) < (g)->nheld) (g)->held[o] += cast(l_mem, (n)); }


/*
** agentbox: the small-block pool. A block that is at most POOLMAX bytes
** with its header is taken from a slab of POOLSLAB bytes holding blocks
** of one size class (a multiple of 16 bytes), not from 'g->frealloc':
** most of what a script makes (tables, their small node and array parts,
** closures, short strings) is small and short-lived, and the allocator's
** own work per block (glibc's bins, mlua's bookkeeping) cost more than
** the rest of making it. A freed block goes on its slab's free list and
** is the next one of its class handed out (LIFO, so it is still in the
** cache); slabs with room are kept per class ('g->avail'), the one a
** block was last freed into first. Slabs come from 'g->frealloc', so the
** host sees them as it saw the blocks (mlua's count of memory in use);
** the counts Lua keeps ('GCdebt', the memory limit, what owners hold)
** see the blocks' sizes as before. Up to POOLKEEP slabs with no block in
** use are kept; one more that empties is given back. 'luaM_freepool'
** gives all of them back when the state closes. Where a block came from
** is in bytes 12 to 16 of its header: its distance from its slab's
** start, 0 for a block of its own.
*/
#define POOLMAX		(LUAI_POOLCLASSES * 16)
#define POOLSLAB	16384
#define POOLKEEP	64
#define SLABHDR		80  /* 'Slab' rounded up to 16 bytes */

typedef struct Slab {
  struct Slab *next, *prev;  /* in 'g->slabs' */
  struct Slab *anext, *aprev;  /* in 'g->avail[cls]' while it has room */
  char *free;  /* its freed blocks; each holds the next one's address */
  char *bump;  /* its first block never handed out */
  unsigned int used;  /* blocks handed out and not freed */
  unsigned int cls;  /* the size of its blocks, in units of 16 bytes */
  int inavail;  /* whether it is in 'g->avail[cls]' */
} Slab;

typedef char slabfits[(sizeof(Slab) <= SLABHDR) ? 1 : -1];

#define blockslab(raw)	(*cast(unsigned int *, (raw) + 12))
#define slabof(raw)	cast(Slab *, (raw) - blockslab(raw))
#define poolclass(rs)	(cast_uint((rs) + 15) >> 4)
#define slabfull(s)  \
  ((s)->free == NULL &&  \
   (s)->bump + (s)->cls * 16 > cast_charp(s) + POOLSLAB)

static void availpush (global_State *g, Slab *s) {
  s->aprev = NULL;
  s->anext = g->avail[s->cls];
  if (s->anext != NULL)
    s->anext->aprev = s;
  g->avail[s->cls] = s;
  s->inavail = 1;
}

static void availunlink (global_State *g, Slab *s) {
  if (s->aprev != NULL)
    s->aprev->anext = s->anext;
  else
    g->avail[s->cls] = s->anext;
  if (s->anext != NULL)
    s->anext->aprev = s->aprev;
  s->inavail = 0;
}

/* a block of class 'cls' (1 to LUAI_POOLCLASSES), or NULL when a new slab
   cannot be had */
static char *poolalloc (global_State *g, unsigned int cls) {
  Slab *s = g->avail[cls];
  char *raw;
  if (l_unlikely(s == NULL)) {
    s = cast(Slab *, (*g->frealloc)(g->ud, NULL, 0, POOLSLAB));
    if (s == NULL)
      return NULL;
    s->free = NULL;
    s->bump = cast_charp(s) + SLABHDR;
    s->used = 0;
    s->cls = cls;
    s->prev = NULL;
    s->next = g->slabs;
    if (s->next != NULL)
      s->next->prev = s;
    g->slabs = s;
    g->emptyslabs++;
    availpush(g, s);
  }
  if (s->free != NULL) {
    raw = s->free;
    s->free = *cast(char **, raw);
  }
  else {
    raw = s->bump;
    s->bump += cls * 16;
  }
  if (s->used++ == 0)
    g->emptyslabs--;
  if (slabfull(s))
    availunlink(g, s);
  blockslab(raw) = cast_uint(raw - cast_charp(s));
  return raw;
}

static void poolfree (global_State *g, char *raw) {
  Slab *s = slabof(raw);
  *cast(char **, raw) = s->free;
  s->free = raw;
  if (!s->inavail)
    availpush(g, s);
  if (--s->used == 0) {
    if (g->emptyslabs < POOLKEEP)
      g->emptyslabs++;
    else {  /* enough empty slabs kept: give this one back */
      availunlink(g, s);
      if (s->prev != NULL)
        s->prev->next = s->next;
      else
        g->slabs = s->next;
      if (s->next != NULL)
        s->next->prev = s->prev;
      (*g->frealloc)(g->ud, s, POOLSLAB, 0);
    }
  }
}

void luaM_freepool (global_State *g) {
  Slab *s = g->slabs;
  while (s != NULL) {
    Slab *next = s->next;
    (*g->frealloc)(g->ud, s, POOLSLAB, 0);
    s = next;
  }
  g->slabs = NULL;
}

/* a block of 'rs' bytes with its header, from the pool if it is small */
static char *rawalloc (global_State *g, size_t rs, size_t tag) {
  char *raw;
  if (rs <= POOLMAX)
    return poolalloc(g, poolclass(rs));
  raw = cast_charp((*g->frealloc)(g->ud, NULL, tag, rs));
  if (raw != NULL)
    blockslab(raw) = 0;
  return raw;
}

static void rawfree (global_State *g, char *raw, size_t rs) {
  if (blockslab(raw) != 0)
    poolfree(g, raw);
  else
    (*g->frealloc)(g->ud, raw, rs, 0);
}

static void *callfrealloc (global_State *g, void *block, size_t os,
                                                        size_t ns) {
  char *raw;
  char *newraw;
  unsigned int old;
  if (block == NULL) {  /* a new block ('os' is a tag) */
    if (ns == 0)
      return NULL;
    newraw = rawalloc(g, ns + OWNERHDR, os);
    if (newraw == NULL)
      return NULL;
  }
  else {
    raw = cast_charp(block) - OWNERHDR;
    old = blockowner(raw);
    if (ns == 0) {  /* free it */
      rawfree(g, raw, os + OWNERHDR);
      addheld(g, old, -cast(l_mem, os));
      return NULL;
    }
    if (blockslab(raw) == 0 && ns + OWNERHDR > POOLMAX) {  /* no pool */
      newraw = cast_charp((*g->frealloc)(g->ud, raw, os + OWNERHDR,
                                                     ns + OWNERHDR));
      if (newraw == NULL)
        return NULL;
    }
    else if (blockslab(raw) != 0 && ns + OWNERHDR <= POOLMAX &&
             poolclass(ns + OWNERHDR) == slabof(raw)->cls)
      newraw = raw;  /* it still fits its class */
    else {  /* into or out of the pool, or to another class */
      newraw = rawalloc(g, ns + OWNERHDR, 0);
      if (newraw == NULL)
        return NULL;  /* the old block stays as it was */
      memcpy(newraw, raw, 12);  /* the header but where it came from */
      memcpy(newraw + OWNERHDR, raw + OWNERHDR, (os < ns) ? os : ns);
      rawfree(g, raw, os + OWNERHDR);
    }
    addheld(g, old, -cast(l_mem, os));
  }
  blockowner(newraw) = g->owner;
  addheld(g, g->owner, ns);
  return newraw + OWNERHDR;
}


/*
** When an allocation fails, it will try again after an emergency
** collection, except when it cannot run a collection.  The GC should
** not be called while the state is not fully built, as the collector
** is not yet fully initialized. Also, it should not be called when
** 'gcstopem' is true, because then the interpreter is in the middle of
** a collection step.
*/
#define cantryagain(g)	(completestate(g) && !g->gcstopem)




#if defined(EMERGENCYGCTESTS)
/*
** First allocation will fail except when freeing a block (frees never
** fail) and when it cannot try again; this fail will trigger 'tryagain'
** and a full GC cycle at every allocation.
*/
static void *firsttry (global_State *g, void *block, size_t os, size_t ns) {
  if (ns > 0 && cantryagain(g))
    return NULL;  /* fail */
  else  /* normal allocation */
    return callfrealloc(g, block, os, ns);
}
#else
#define firsttry(g,block,os,ns)    callfrealloc(g, block, os, ns)
#endif





/*
** {==================================================================
** Functions to allocate/deallocate arrays for the Parser
** ===================================================================
*/

/*
** Minimum size for arrays during parsing, to avoid overhead of
** reallocating to size 1, then 2, and then 4. All these arrays
** will be reallocated to exact sizes or erased when parsing ends.
*/
#define MINSIZEARRAY	4


void *luaM_growaux_ (lua_State *L, void *block, int nelems, int *psize,
                     int size_elems, int limit, const char *what) {
  void *newblock;
  int size = *psize;
  if (nelems + 1 <= size)  /* does one extra element still fit? */
    return block;  /* nothing to be done */
  if (size >= limit / 2) {  /* cannot double it? */
    if (l_unlikely(size >= limit))  /* cannot grow even a little? */
      luaG_runerror(L, "too many %s (limit is %d)", what, limit);
    size = limit;  /* still have at least one free place */
  }
  else {
    size *= 2;
    if (size < MINSIZEARRAY)
      size = MINSIZEARRAY;  /* minimum size */
  }
  lua_assert(nelems + 1 <= size && size <= limit);
  /* 'limit' ensures that multiplication will not overflow */
  newblock = luaM_saferealloc_(L, block, cast_sizet(*psize) * size_elems,
                                         cast_sizet(size) * size_elems);
  *psize = size;  /* update only when everything else is OK */
  return newblock;
}


/*
** In prototypes, the size of the array is also its number of
** elements (to save memory). So, if it cannot shrink an array
** to its number of elements, the only option is to raise an
** error.
*/
void *luaM_shrinkvector_ (lua_State *L, void *block, int *size,
                          int final_n, int size_elem) {
  void *newblock;
  size_t oldsize = cast_sizet((*size) * size_elem);
  size_t newsize = cast_sizet(final_n * size_elem);
  lua_assert(newsize <= oldsize);
  newblock = luaM_saferealloc_(L, block, oldsize, newsize);
  *size = final_n;
  return newblock;
}

/* }================================================================== */


l_noret luaM_toobig (lua_State *L) {
  luaG_runerror(L, "memory allocation error: block too big");
}


/*
** Free memory
*/
void luaM_free_ (lua_State *L, void *block, size_t osize) {
  global_State *g = G(L);
  lua_assert((osize == 0) == (block == NULL));
  callfrealloc(g, block, osize, 0);
  g->GCdebt -= osize;
}


/*
** In case of allocation fail, this function will do an emergency
** collection to free some memory and then try the allocation again.
*/
static void *tryagain (lua_State *L, void *block,
                       size_t osize, size_t nsize) {
  global_State *g = G(L);
  if (cantryagain(g)) {
    luaC_fullgc(L, 1);  /* try to free some memory... */
    return callfrealloc(g, block, osize, nsize);  /* try again */
  }
  else return NULL;  /* cannot run an emergency collection */
}


/*
** agentbox: whether the current owner may grow by 'grow' bytes. Two
** limits hold: what one owner other than the host may hold ('g->quota'),
** and what all hold together ('g->memlimit'). Over either, garbage is
** collected first, as for a failed allocation. Then an owner over its
** quota is refused. When only the shared cap is hit, the largest holder
** is the one stopped: if that is the current owner, it is refused;
** otherwise the allocation goes on (no owner gets an error for another's
** bytes) and the largest holder becomes 'g->victim', for the host to stop
** and release after the call; until then the others may go on up to one
** quota over the cap. False means "not enough memory" ('g->memout').
*/
#define withinlimit(g,grow,limit)  \
  ((limit) == 0 || gettotalbytes(g) + cast(l_mem, grow) <= (limit))

#define withinquota(g,grow)  \
  ((g)->quota == 0 || (g)->owner == 0 || (g)->owner >= (g)->nheld ||  \
   (g)->held[(g)->owner] + cast(l_mem, grow) <= (g)->quota)

/* whether a victim other than the current owner is already named and the
   allocation stays within the headroom the others have until it is
   released */
#define othervictim(g,grow)  \
  ((g)->victim != 0 && (g)->victim != (g)->owner && (g)->owner != 0 &&  \
   withinlimit(g, grow, (g)->memlimit + (g)->quota))

/* the owner (other than the host) holding the most bytes; the lowest
   number among equals */
static unsigned int largestholder (global_State *g) {
  unsigned int o, best = 0;
  for (o = 1; o < g->nheld; o++)
    if (best == 0 || g->held[o] > g->held[best])
      best = o;
  return best;
}

int luaM_roomfor (lua_State *L, size_t grow) {
  global_State *g = G(L);
  if (l_likely(withinquota(g, grow))) {
    if (l_likely(withinlimit(g, grow, g->memlimit)) || othervictim(g, grow))
      return 1;
  }
  /* agentbox: a full collection costs about as much as the memory in use:
     run it again only once a sixteenth more is in use than after the last
     one (a refusal in a loop does not collect each time), and pay for it */
  if (cantryagain(g) && gettotalbytes(g) >= g->gcmark) {
    luaC_fullgc(L, 1);
    luaE_chargelater(L, gettotalbytes(g) >> 10);
    g->gcmark = gettotalbytes(g) + (gettotalbytes(g) >> 4);
  }
  if (withinquota(g, grow)) {
    unsigned int largest;
    if (withinlimit(g, grow, g->memlimit) || othervictim(g, grow))
      return 1;
    largest = largestholder(g);
    if (g->owner != 0 && g->quota != 0 && largest != 0 &&
        largest != g->owner &&
        withinlimit(g, grow, g->memlimit + g->quota)) {
      g->victim = largest;
      return 1;
    }
  }
  g->memout = 1;
  return 0;
}


/*
** Generic allocation routine.
*/
void *luaM_realloc_ (lua_State *L, void *block, size_t osize, size_t nsize) {
  void *newblock;
  global_State *g = G(L);
  lua_assert((osize == 0) == (block == NULL));
  if (l_unlikely(nsize > osize && !luaM_roomfor(L, nsize - osize)))
    return NULL;  /* agentbox: over the limit */
  newblock = firsttry(g, block, osize, nsize);
  if (l_unlikely(newblock == NULL && nsize > 0)) {
    newblock = tryagain(L, block, osize, nsize);
    if (newblock == NULL)  /* still no memory? */
      return NULL;  /* do not update 'GCdebt' */
  }
  lua_assert((nsize == 0) == (newblock == NULL));
  g->GCdebt = (g->GCdebt + nsize) - osize;
  return newblock;
}


void *luaM_saferealloc_ (lua_State *L, void *block, size_t osize,
                                                    size_t nsize) {
  void *newblock = luaM_realloc_(L, block, osize, nsize);
  if (l_unlikely(newblock == NULL && nsize > 0))  /* allocation failed? */
    luaM_error(L);
  return newblock;
}


void *luaM_malloc_ (lua_State *L, size_t size, int tag) {
  if (size == 0)
    return NULL;  /* that's all */
  else {
    global_State *g = G(L);
    void *newblock;
    if (l_unlikely(!luaM_roomfor(L, size)))  /* agentbox: over the limit */
      luaM_error(L);
    newblock = firsttry(g, NULL, tag, size);
    if (l_unlikely(newblock == NULL)) {
      newblock = tryagain(L, NULL, tag, size);
      if (newblock == NULL)
        luaM_error(L);
    }
    g->GCdebt += size;
    return newblock;
  }
}
