package proxy

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"
)

// MaxTokenFileSize is the largest control token file ReadTokenFile reads, in bytes.
const MaxTokenFileSize = 4096

// CleanToken returns a control token as the control API compares it: without surrounding
// whitespace (HTTP drops it from a header value, and a token read from a file or an
// environment variable often ends in a newline). It refuses a token with whitespace or a
// control character inside, which no caller could send as it is. An empty result means no
// token.
func CleanToken(token string) (string, error) {
	token = strings.TrimSpace(token)
	for _, r := range token {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == unicode.ReplacementChar {
			return "", errors.New("control token: whitespace, a control character or invalid UTF-8 inside")
		}
	}
	return token, nil
}

// ReadTokenFile reads a control token from the file named path: the whole file, at most
// MaxTokenFileSize bytes, cleaned by CleanToken. A file holding no token is an error.
func ReadTokenFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("control token file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxTokenFileSize+1))
	if err != nil {
		return "", fmt.Errorf("control token file: %w", err)
	}
	if len(data) > MaxTokenFileSize {
		return "", fmt.Errorf("control token file %s: larger than %d bytes", path, MaxTokenFileSize)
	}
	token, err := CleanToken(string(data))
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if token == "" {
		return "", fmt.Errorf("control token file %s: holds no token", path)
	}
	return token, nil
}
