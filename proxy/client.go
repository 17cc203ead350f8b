package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Client talks to a running proxy's control API.
type Client struct {
	// Addr is the control address, "host:port" or a full "http://host:port" URL.
	Addr string
	// Token, when non-empty, is sent on every call as a bearer token, without surrounding
	// whitespace (as the proxy compares it: see CleanToken).
	Token string
	// HTTP is the client used; nil means http.DefaultClient. Give it a timeout, or pass
	// contexts with deadlines.
	HTTP *http.Client
}

// APIError is a failed call: the HTTP status and the proxy's message.
type APIError struct {
	Status  int
	Message string
}

func (e *APIError) Error() string { return e.Message }

// Nodes returns every node's status, sorted by name.
func (c *Client) Nodes(ctx context.Context) ([]NodeStatus, error) {
	var l NodeList
	err := c.do(ctx, http.MethodGet, "/v1/nodes", nil, &l)
	return l.Nodes, err
}

// Node returns one node's status.
func (c *Client) Node(ctx context.Context, name string) (NodeStatus, error) {
	var s NodeStatus
	err := c.do(ctx, http.MethodGet, "/v1/nodes/"+url.PathEscape(name), nil, &s)
	return s, err
}

// SetMode sets a node's mode, written as ParseMode reads it ("freeze", "slow 2s"), and
// returns the node's new status.
func (c *Client) SetMode(ctx context.Context, name, mode string) (NodeStatus, error) {
	body, _ := json.Marshal(SetModeRequest{Mode: mode})
	var s NodeStatus
	err := c.do(ctx, http.MethodPut, "/v1/nodes/"+url.PathEscape(name)+"/mode", body, &s)
	return s, err
}

func (c *Client) base() string {
	if strings.HasPrefix(c.Addr, "http://") || strings.HasPrefix(c.Addr, "https://") {
		return strings.TrimSuffix(c.Addr, "/")
	}
	return "http://" + c.Addr
}

func (c *Client) do(ctx context.Context, method, path string, body []byte, out any) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base()+path, rd)
	if err != nil {
		return fmt.Errorf("control %s: %w", c.Addr, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token := strings.TrimSpace(c.Token); token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("control %s: %w", c.Addr, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("control %s: %w", c.Addr, err)
	}
	if resp.StatusCode != http.StatusOK {
		var eb ErrorBody
		if json.Unmarshal(data, &eb) != nil || eb.Error == "" {
			eb.Error = fmt.Sprintf("control %s: HTTP %s", c.Addr, resp.Status)
		}
		return &APIError{Status: resp.StatusCode, Message: eb.Error}
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("control %s: reply: %w", c.Addr, err)
	}
	return nil
}

// IsAPIError reports whether err came from the proxy (as opposed to the network).
func IsAPIError(err error) bool {
	var ae *APIError
	return errors.As(err, &ae)
}
