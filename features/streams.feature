@server @streams
Feature: Resumable streams
  A streamed chat sent with X-Conversation-Id is kept by the server: its caller can hang up and reattach
  (GET /v1/stream?conv_id=ID&from=N replays it from byte N), ask how it is going (POST /v1/streams/lookup
  with the ids it owns) and stop it (DELETE /v1/stream?conv_id=ID, 204). Whoever knows the id owns the
  stream; a caller without it learns nothing: there is no route that lists streams, and every answer about
  an id it guesses is the answer about an id that never existed (README-dev.md, "Resumable streaming").

  Background: A server
    Given a server listening on localhost:8080
    And   a model file default
    And   1 slots
    And   512 KV cache size
    Then  the server is starting

  Scenario: A finished stream is replayed byte for byte, from the start or from any offset
    When  a streamed chat is sent as conversation mine
    And   conversation mine is replayed
    Then  the replay of conversation mine is what its caller received
    And   the lookup of conversation mine says it is done, with the size of its replay
    And   the replay of conversation mine from byte 100 is the rest of it

  Scenario: A caller who hangs up can reattach and get the whole chat
    When  a streamed chat is sent as conversation mine and dropped after its first event
    And   conversation mine is replayed
    Then  the replay of conversation mine is the whole chat
    And   the lookup of conversation mine says it is done, with the size of its replay

  Scenario: A stopped stream is forgotten
    When  a streamed chat is sent as conversation mine
    And   conversation mine is stopped
    Then  the server knows nothing of conversation mine
    When  conversation mine is stopped
    Then  the server knows nothing of conversation mine

  Scenario: A caller without the id learns nothing about the stream
    When  a streamed chat is sent as conversation mine
    And   conversation mine is replayed
    And   a caller who does not know the id of conversation mine looks for streams
    Then  the caller learns nothing about conversation mine
    And   the lookup of conversation mine says it is done, with the size of its replay
