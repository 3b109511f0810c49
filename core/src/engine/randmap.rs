//! Random order without repeats: every block-aligned offset of a region exactly once, like
//! fio's random map.
