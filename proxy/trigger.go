package proxy

// Triggers: an armed mode (Mode.AfterBytes, Mode.AtCommand) leaves its fault inactive on a
// connection until the connection has passed that many server bytes or commands, counted from
// the moment the mode was set there. A trigger fires only for the mode that armed it: every
// setMode bumps the connection's generation, and a count taken under an older one is void.

// spendBytes takes up to n server bytes from an armed AfterBytes budget. It returns how many
// may pass before the trigger, and the generation to fire if the budget ran out.
func (c *conn) spendBytes(n int) (int, uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.active || c.mode.AfterBytes == 0 {
		return n, 0, false
	}
	k := int(min(int64(n), c.bytesLeft))
	c.bytesLeft -= int64(k)
	return k, c.gen, c.bytesLeft == 0
}

// byteBudget returns how many server bytes may be spliced before looking again: the rest of
// an armed AfterBytes budget, or spliceChunk.
func (c *conn) byteBudget() (int64, uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.active || c.mode.AfterBytes == 0 {
		return spliceChunk, 0, false
	}
	return min(c.bytesLeft, spliceChunk), c.gen, true
}

// spent takes w spliced bytes from the AfterBytes budget armed at generation gen, firing the
// fault when it runs out.
func (c *conn) spent(gen uint64, w int64) {
	c.mu.Lock()
	if c.gen != gen || c.active {
		c.mu.Unlock()
		return
	}
	c.bytesLeft -= w
	fire := c.bytesLeft <= 0
	c.mu.Unlock()
	if fire {
		c.fire(gen)
	}
}

// countCommand counts a command that begins for an armed AtCommand trigger; at the K-th the
// fault starts, and acts on that very command.
func (c *conn) countCommand() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.active || c.mode.AtCommand <= 0 {
		return
	}
	if c.cmdsLeft <= 0 {
		c.active = true
		c.broadcastLocked()
	} else {
		c.cmdsLeft--
	}
}

// fire starts an armed fault on this connection, unless the mode changed since it was armed:
// the fault acts from now on, and its onStart hook acts at once.
func (c *conn) fire(gen uint64) {
	c.mu.Lock()
	if c.gen != gen || c.active {
		c.mu.Unlock()
		return
	}
	c.active = true
	f := c.hooks
	c.broadcastLocked()
	c.mu.Unlock()
	if h, ok := f.(onStart); ok {
		h.start(c, true)
	}
}
