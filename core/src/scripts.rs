//! Upstream agnostics' script protocol: discovering `#NAME=`/`#DESC=` shell tests, running each
//! in its own process group with a timeout, and the `~/rpdiags.txt` log.
