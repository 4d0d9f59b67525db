/*
 * cp_cacheline.h - the size of a cache line, for the runtime's layouts
 * (records and locks on lines of their own) and the analyzer's prefetches
 * alike: 64 bytes on the x86-64 processors it runs on.
 */
#ifndef CP_CACHELINE_H
#define CP_CACHELINE_H

#define CP_CACHE_LINE 64

#endif /* CP_CACHELINE_H */
