@server @cors
Feature: CORS
  Browsers ask before a cross-origin request (preflight OPTIONS) and then read an answer only when its
  Access-Control-Allow-Origin names their origin. By default llama-server allows every origin, with
  credentials: it echoes the request's Origin, on preflights and on every answer, errors included.

  Background: A server with the default CORS settings
    Given a server listening on localhost:8080
    And   a model file default
    And   a model alias smollm2
    And   1 slots
    And   256 KV cache size
    And   embeddings extraction
    And   the server option --pooling set to last
    Then  the server is starting

  Scenario Outline: A preflight from <origin> to <path> is allowed, with credentials
    When an OPTIONS request to <path> is sent from <origin>
    Then the response allows the origin <origin>
    And  CORS header Access-Control-Allow-Credentials is set to true
    And  the preflight allows the method and headers it asked for

    Examples:
      | origin                  | path                 |
      | http://localhost:3000   | /v1/chat/completions |
      | https://web.mydomain.fr | /completion          |
      | https://app.example.com | /v1/embeddings       |
      | null                    | /v1/chat/completions |

  Scenario Outline: The answer to <what> allows the requesting origin
    When origin https://web.mydomain.fr sends <method> <path> with JSON <body>
    Then the response status is <status>
    And  the response allows the origin https://web.mydomain.fr

    Examples:
      | what               | method | path                 | body                                                             | status |
      | a completion       | POST   | /completion          | {"prompt": "Hi", "n_predict": 1}                                 | 200    |
      | a chat completion  | POST   | /v1/chat/completions | {"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 1} | 200    |
      | an OAI embedding   | POST   | /v1/embeddings       | {"input": "Hi"}                                                  | 200    |
      | a native embedding | POST   | /embedding           | {"content": "Hi"}                                                | 200    |
      | a bad request      | POST   | /v1/embeddings       | {"input": []}                                                    | 400    |
      | malformed JSON     | POST   | /completion          | {"prompt":                                                       | 400    |

  Scenario Outline: Plain GETs and unknown paths carry the origin too: <path>
    When origin http://localhost:5173 sends GET <path>
    Then the response status is <status>
    And  the response allows the origin http://localhost:5173

    Examples:
      | path        | status |
      | /health     | 200    |
      | /props      | 200    |
      | /metrics    | 501    |
      | /no/such    | 404    |

  Scenario Outline: The original suite's preflight checks
    When an OPTIONS request is sent from <origin>
    Then CORS header <cors_header> is set to <cors_header_value>

    Examples: Headers
      | origin          | cors_header                      | cors_header_value |
      | localhost       | Access-Control-Allow-Origin      | localhost         |
      | web.mydomain.fr | Access-Control-Allow-Origin      | web.mydomain.fr   |
      | origin          | Access-Control-Allow-Credentials | true              |

    # The exact lists b11434 sends; other builds may send other lists, which the preflight scenario above
    # judges by what a browser needs (the method and headers it asked for) instead.
    @build.from.11434
    Examples: Headers of b11434
      | origin          | cors_header                      | cors_header_value |
      | web.mydomain.fr | Access-Control-Allow-Methods     | GET, POST, DELETE, OPTIONS |
      | web.mydomain.fr | Access-Control-Allow-Headers     | *                 |
