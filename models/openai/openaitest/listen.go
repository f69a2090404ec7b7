package openaitest

import (
	"net"
	"net/http"
	"net/http/httptest"
)

// Listen starts a server as New does, but on l (a fixed port, for a test
// that starts the server as another program, in place of vLLM, at the
// address a recipe names). Close stops it and closes l.
func Listen(cfg Config, l net.Listener) *Server {
	s := New(cfg)
	s.Server.Close()
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.Server.Listener.Close()
	s.Server.Listener = l
	s.Server.Start()
	return s
}
