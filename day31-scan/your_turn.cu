/* your_turn.cu: day 31's "Your turn" (README.md). Yours to edit; not graded.
 *
 * ./scan --check runs what you write here through the course's levels
 * (scanWith) and checks it element for element; a task you have not
 * touched is reported "not yet attempted" and the check still passes.
 * Once it passes, ./scan times it as the row "scanWith(yourTileScan)".
 *
 * Tasks 1 and 2: yourTileScan has the contract of every tile kernel
 * (tile_scan.h, ScanTileKernel): scan each SCAN_TILE-int (256) tile of
 * data[0..n) in place, exclusive (inclusive != 0: inclusive), grid-stride
 * over tiles, tile k's total to tileSums[k]. It is launched with 64
 * threads a block: thread t owns the four ints 4t .. 4t + 3 of a tile.
 * Pad a partial tile with 0 and write nothing at or past n.
 */
#include <stddef.h>

#include "tile_scan.h"

__global__ void yourTileScan(int *data, size_t n, int *tileSums,
                             int inclusive)
{
    /* Your code here. */
}
