@server @cors_proxy
Feature: CORS proxy and built-in tools
  Both are experimental and off by default: /cors-proxy and /tools answer 403 feature_disabled. The CORS
  proxy (--ui-mcp-proxy) forwards a request to the URL it is given with only the headers the caller names
  X-Llama-Server-Proxy-Header-<name>, never the caller's own credentials or cookies. Built-in tools
  (--tools) list only the tools named, and limit CORS to localhost origins unless --cors-origins is given.
  Local media files are read only from --media-path, never above it (test_security.py). Every proxied
  request here goes to a capture server on 127.0.0.1 that the scenario starts and stops.

  Background: A server
    Given a server listening on localhost:8080
    And   a model file default
    And   1 slots
    And   256 KV cache size

  Scenario Outline: <method> <path> is refused by default
    Given a capture server on 127.0.0.1
    And   the server is starting
    When  a <method> request to <path>
    Then  the feature is reported disabled

    Examples:
      | method | path                                   |
      | GET    | /cors-proxy?url=http://127.0.0.1:9/x   |
      | POST   | /cors-proxy?url=http://127.0.0.1:9/x   |
      | GET    | /tools                                 |
      | POST   | /tools                                 |

  @requires.cors_proxy
  Scenario: The disabled proxy reaches nothing
    Given a capture server on 127.0.0.1
    And   the server is starting
    When  the CORS proxy is asked to GET the capture server with the headers:
      | name                               | value            |
      | X-Llama-Server-Proxy-Header-Accept | application/json |
    Then  the feature is reported disabled
    And   the capture server got no request

  @requires.cors_proxy @requires.api_key
  Scenario: The proxy forwards only the headers meant for the target
    Given a capture server on 127.0.0.1
    And   a server api key first-Key-4711
    And   the server option --ui-mcp-proxy
    And   the server is starting
    When  the CORS proxy is asked to GET the capture server with the headers:
      | name                                      | value                 |
      | Authorization                             | Bearer first-Key-4711 |
      | Proxy-Authorization                       | Basic c2VjcmV0        |
      | Cookie                                    | session=secret        |
      | X-Forwarded-For                           | 10.0.0.1              |
      | X-Llama-Server-Proxy-Header-Accept        | application/json      |
      | X-Llama-Server-Proxy-Header-Authorization | Bearer explicit       |
    Then  the capture server got only the headers meant for it

  # server-tools.cpp answers an unknown tool with 404 and its own message; what reaches the client is the
  # server's generic 404 ("File Not Found", not_found_error), which still refuses the tool.
  @requires.server_tools
  Scenario: Built-in tools list only the tools named, and refuse the others
    Given the server option --tools set to read_file,grep_search
    And   the server is starting
    Then  the built-in tools listed are read_file, grep_search
    When  a POST request to /tools with JSON {"tool": "exec_shell_command", "params": {"command": "echo hi"}}
    Then  the request is rejected with 404 not_found_error

  @requires.server_tools @requires.cors_origins
  Scenario Outline: With built-in tools, CORS allows only localhost origins: <origin>
    Given the server option --tools set to get_info
    And   the server is starting
    When  an OPTIONS request to /v1/chat/completions is sent from <origin>
    Then  the response <verdict> the origin <origin>

    Examples:
      | origin                 | verdict           |
      | http://localhost:5173  | allows            |
      | http://127.0.0.1:8080  | allows            |
      | https://evil.example   | does not allow    |
      | http://localhost.evil  | does not allow    |

  @requires.server_tools @requires.cors_origins
  Scenario: With built-in tools, an explicit --cors-origins is kept
    Given the server option --tools set to get_info
    And   the server option --cors-origins set to https://web.mydomain.fr
    And   the server is starting
    When  an OPTIONS request to /v1/chat/completions is sent from https://web.mydomain.fr
    Then  the response allows the origin https://web.mydomain.fr

  # Needs a model with vision (LLAMA_BDD_MM_MODEL_PATH, LLAMA_BDD_MMPROJ_PATH): a text-only model refuses
  # every image before looking at its URL. Follows test_security.py::test_local_media_file.
  @requires.media_path
  Scenario Outline: Local media files are read from --media-path only: <url>
    Given a multimodal model with its projector
    And   a media directory with the test image test.png and one beside it
    And   the server is starting
    When  a POST request to /chat/completions with JSON {"max_tokens": 1, "messages": [{"role": "user", "content": [{"type": "text", "text": "What is this?"}, {"type": "image_url", "image_url": {"url": "<url>"}}]}]}
    Then  the response status is <status>

    Examples:
      | url                     | status |
      | file://test.png         | 200    |
      | file://missing.png      | 400    |
      | file://../test.png      | 400    |
      | file:///etc/hostname    | 400    |

  @requires.mmproj
  Scenario: Without --media-path no local file is read
    Given a multimodal model with its projector
    And   the server is starting
    When  a POST request to /chat/completions with JSON {"max_tokens": 1, "messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "file:///etc/hostname"}}]}]}
    Then  the request is rejected with 400 invalid_request_error saying "file:// URLs are not allowed"
