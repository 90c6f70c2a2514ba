// The one fork and the one join every run of the laboratory uses, on a
// StreamPool (owners.hpp). The lessons write theirs out in main.cu, as the
// article does.
#pragma once

#include "owners.hpp"

namespace csg {

// Fork: stream 0 records the fork event and every other stream waits on it,
// so their work starts after everything queued on stream 0 so far (in a
// capture, this is what brings the other streams into it).
void fork(const StreamPool& pool);
// Join: every other stream records its join event and stream 0 waits on
// them all, so what is queued on stream 0 next waits for every stream (a
// capture can only end once every stream it forked is joined back).
void join(const StreamPool& pool);

}  // namespace csg
