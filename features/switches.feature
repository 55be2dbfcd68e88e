@server @switches
Feature: Endpoint switches
  --no-slots turns GET /slots off (501 not_supported_error). POST /props is refused (501) unless the
  server runs with --props; the README lists no property it can change yet ("Options: None yet"), so with
  --props it only answers {"success": true} and GET /props says endpoint_props true. --no-webui serves no
  UI at / (the embedded build has no UI assets; a UI directory given with --path stands in for one).
  Under an API key, / and /health stay public.

  Background: A server
    Given a server listening on localhost:8080
    And   a model file default
    And   1 slots
    And   256 KV cache size

  @requires.slots_endpoint
  Scenario: --no-slots refuses GET /slots
    Given the server option --no-slots
    And   the server is starting
    When  a GET request to /slots
    Then  the request is rejected with 501 not_supported_error
    When  a GET request to /props
    Then  the response field endpoint_slots is false

  @requires.slots_endpoint
  Scenario: /slots answers by default
    Given the server is starting
    When  a GET request to /slots
    Then  the response status is 200
    When  a GET request to /props
    Then  the response field endpoint_slots is true

  @requires.props_endpoint
  Scenario: POST /props is refused without --props
    Given the server is starting
    When  a POST request to /props with JSON {}
    Then  the request is rejected with 501 not_supported_error
    When  a GET request to /props
    Then  the response field endpoint_props is false

  @requires.props_endpoint
  Scenario: POST /props is allowed with --props
    Given the server option --props
    And   the server is starting
    When  a POST request to /props with JSON {}
    Then  the response JSON is {"success": true}
    When  a GET request to /props
    Then  the response field endpoint_props is true

  @requires.webui
  Scenario: The web UI is served at / by default
    Given a static web UI directory
    And   the server is starting
    When  a GET request to /
    Then  the response status is 200
    And   the response header Content-Type is text/html

  @requires.webui
  Scenario: --no-webui serves no UI at /
    Given a static web UI directory
    And   the server option --no-webui
    And   the server is starting
    When  a GET request to /
    Then  the response status is 404
    When  a GET request to /index.html
    Then  the response status is 404

  @requires.webui @requires.api_key
  Scenario: / and /health stay public under an API key
    Given a static web UI directory
    And   a server api key first-Key-4711
    And   the server is starting
    When  these endpoints are called with no key:
      | method | path       |
      | GET    | /          |
      | GET    | /health    |
      | GET    | /v1/health |
    Then  every endpoint answers 200 without an error
    When  these endpoints are called with no key:
      | method | path       |
      | GET    | /props     |
    Then  every endpoint answers 401 authentication_error

  # The server's own tests (test_security.py, issue #21229) want the web UI's static files public under an
  # API key. b11434 makes public only "/" and the assets embedded at build time: the files of a --path UI
  # (its index.html and scripts) answer 401 without a key, so a browser gets the page but not its scripts.
  @requires.webui @requires.api_key @known_bug
  Scenario: A --path UI's own files stay public under an API key
    Given a static web UI directory
    And   a server api key first-Key-4711
    And   the server is starting
    When  these endpoints are called with no key:
      | method | path        |
      | GET    | /index.html |
      | GET    | /app.js     |
    Then  every endpoint answers 200 without an error
