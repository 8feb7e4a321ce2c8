/* corpus/include_angle_up: expected forbidden_include: a <...> include with
 * enough ".." to climb out of any include folder, to /etc/passwd. Only the
 * real path the preprocessor opened counts. */
#include <../../../../../../../../../../../../../../../../etc/passwd>
#include <cstddef>
