package analysis

// ByteExact turns off c's word-level shadow and its replay of lanes that
// load the same bytes: the checker then tracks every byte of every lane
// access on its own, the reference the fast paths must agree with.
func ByteExact(c *Checker) { c.byteExact = true }
