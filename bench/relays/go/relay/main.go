// Command relay is the Go reference for Tandem's relay benchmarks: a WebSocket server on
// gorilla/websocket in the design of gorilla's chat example (a reader and a writer goroutine per
// connection, a buffered send channel, one hub goroutine per room). A client joins the room named by
// the request path (/room/NAME) or the query (?room=NAME); every message it sends goes to every other
// client in that room, unchanged.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

const (
	writeWait   = 10 * time.Second
	sendBuffer  = 256
	maxMessage  = 64 * 1024
	readBufSize = 4096
)

type message struct {
	from *client
	data []byte
	kind int
}

type client struct {
	hub  *hub
	conn *websocket.Conn
	send chan message
}

// hub owns the members of one room; only its goroutine touches the set.
type hub struct {
	join      chan *client
	leave     chan *client
	broadcast chan message
	members   map[*client]bool
}

func newHub() *hub {
	return &hub{
		join:      make(chan *client),
		leave:     make(chan *client),
		broadcast: make(chan message, sendBuffer),
		members:   make(map[*client]bool),
	}
}

func (h *hub) run() {
	for {
		select {
		case c := <-h.join:
			h.members[c] = true
		case c := <-h.leave:
			if h.members[c] {
				delete(h.members, c)
				close(c.send)
			}
		case m := <-h.broadcast:
			for c := range h.members {
				if c == m.from {
					continue
				}
				select {
				case c.send <- m:
				default:
					// A member that cannot keep up is dropped, as in the chat example.
					delete(h.members, c)
					close(c.send)
				}
			}
		}
	}
}

// rooms maps room names to hubs, created on first use.
type rooms struct {
	mu   sync.Mutex
	hubs map[string]*hub
}

func (r *rooms) get(name string) *hub {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, ok := r.hubs[name]
	if !ok {
		h = newHub()
		r.hubs[name] = h
		go h.run()
	}
	return h
}

func (c *client) readPump() {
	defer func() {
		c.hub.leave <- c
		c.conn.Close()
	}()
	c.conn.SetReadLimit(maxMessage)
	for {
		kind, data, err := c.conn.ReadMessage()
		if err != nil {
			return
		}
		c.hub.broadcast <- message{from: c, data: data, kind: kind}
	}
}

func (c *client) writePump() {
	defer c.conn.Close()
	for m := range c.send {
		c.conn.SetWriteDeadline(time.Now().Add(writeWait))
		if err := c.conn.WriteMessage(m.kind, m.data); err != nil {
			return
		}
	}
	c.conn.WriteMessage(websocket.CloseMessage, []byte{})
}

func roomName(r *http.Request) string {
	if name := r.URL.Query().Get("room"); name != "" {
		return name
	}
	return strings.TrimPrefix(r.URL.Path, "/room/")
}

func main() {
	host := flag.String("host", "127.0.0.1", "address to listen on")
	port := flag.Int("port", 0, "TCP port (0 picks a free one)")
	flag.Parse()

	upgrader := websocket.Upgrader{
		ReadBufferSize:  readBufSize,
		WriteBufferSize: readBufSize,
		CheckOrigin:     func(*http.Request) bool { return true },
	}
	all := &rooms{hubs: make(map[string]*hub)}
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		conn, err := upgrader.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		c := &client{hub: all.get(roomName(r)), conn: conn, send: make(chan message, sendBuffer)}
		c.hub.join <- c
		go c.writePump()
		go c.readPump()
	})
	listener, err := net.Listen("tcp", fmt.Sprintf("%s:%d", *host, *port))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("PORT %d\n", listener.Addr().(*net.TCPAddr).Port)
	os.Stdout.Sync()
	log.Fatal(http.Serve(listener, nil))
}
