"""When this process imported the package, the first of its modules to be imported.

The content cache stores what a process builds only while no file of the package is newer
than this: the code in memory is then the code on disk, which the cache's keys describe.
"""

import time

IMPORTED_AT = time.time()
