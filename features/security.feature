@server @security @requires.api_key
Feature: API-key security
  With --api-key (one key or several, comma-separated) every endpoint but /health and /v1/health wants a
  key: in Authorization (with or without "Bearer "), or in X-Api-Key when Authorization is absent. Without
  a valid one the answer is 401 with error.type authentication_error, never a 200. The suite never prints a
  key: command lines and requests show *** instead.

  Background: A server with two API keys
    Given a server listening on localhost:8080
    And   a model file default
    And   a model alias smollm2
    And   1 slots
    And   256 KV cache size
    And   embeddings extraction
    And   the server option --pooling set to last
    And   prometheus compatible metrics exposed
    And   a server api key first-Key-4711
    And   a server api key second-Key-0815
    Then  the server is starting

  Scenario Outline: Without a valid key every protected endpoint answers 401: <credentials>
    When these endpoints are called with <credentials>:
      | method | path                 | body                                                             |
      | POST   | /completion          | {"prompt": "Hi", "n_predict": 1}                                 |
      | POST   | /completions         | {"prompt": "Hi", "n_predict": 1}                                 |
      | POST   | /v1/completions      | {"prompt": "Hi", "max_tokens": 1}                                |
      | POST   | /v1/chat/completions | {"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 1} |
      | POST   | /chat/completions    | {"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 1} |
      | POST   | /embedding           | {"content": "Hi"}                                                |
      | POST   | /v1/embeddings       | {"input": "Hi"}                                                  |
      | POST   | /tokenize            | {"content": "Hi"}                                                |
      | POST   | /detokenize          | {"tokens": [1]}                                                  |
      | GET    | /slots               |                                                                  |
      | GET    | /metrics             |                                                                  |
      | GET    | /props               |                                                                  |
      | GET    | /models              |                                                                  |
      | GET    | /v1/models           |                                                                  |
    Then every endpoint answers 401 authentication_error

    Examples:
      | credentials                      |
      | the key hackme                   |
      | the key first-Key-4711x          |
      | the key first-Key-4711,second-Key-0815 |
      | an empty key                     |
      | no key                           |
      | the key hackme in X-Api-Key      |

  Scenario Outline: A valid key opens every protected endpoint: <credentials>
    When these endpoints are called with <credentials>:
      | method | path                 | body                                                             |
      | POST   | /completion          | {"prompt": "Hi", "n_predict": 1}                                 |
      | POST   | /v1/completions      | {"prompt": "Hi", "max_tokens": 1}                                |
      | POST   | /v1/chat/completions | {"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 1} |
      | POST   | /embedding           | {"content": "Hi"}                                                |
      | POST   | /v1/embeddings       | {"input": "Hi"}                                                  |
      | POST   | /tokenize            | {"content": "Hi"}                                                |
      | POST   | /detokenize          | {"tokens": [1]}                                                  |
      | GET    | /slots               |                                                                  |
      | GET    | /metrics             |                                                                  |
      | GET    | /props               |                                                                  |
      | GET    | /models              |                                                                  |
      | GET    | /v1/models           |                                                                  |
    Then every endpoint answers 200 without an error

    Examples:
      | credentials                                    |
      | the key first-Key-4711                         |
      | the key second-Key-0815                        |
      | the key first-Key-4711 in X-Api-Key            |
      | the key second-Key-0815 without the Bearer prefix |

  Scenario Outline: The health endpoints stay public: <credentials>
    When these endpoints are called with <credentials>:
      | method | path       |
      | GET    | /health    |
      | GET    | /v1/health |
    Then every endpoint answers 200 without an error

    Examples:
      | credentials    |
      | no key         |
      | the key hackme |

  Scenario: A browser may read the 401 and send preflights without a key
    When origin https://web.mydomain.fr sends GET /props
    Then the response status is 401
    And  the response field error.type is authentication_error
    And  the response allows the origin https://web.mydomain.fr
    When an OPTIONS request to /v1/chat/completions is sent from https://web.mydomain.fr
    Then the response allows the origin https://web.mydomain.fr

  Scenario: A bad request with a valid key is answered for what it is, not with 401
    Given a user api key first-Key-4711
    When a POST request to /v1/embeddings with JSON {"input": []}
    Then the response status is 400
    And  the response field error.type is invalid_request_error

  Scenario: The openai client raises AuthenticationError for a wrong key
    Given a user api key hackme
    When the openai client calls chat completions, completions, embeddings and models
    Then each openai client call raised AuthenticationError

  Scenario: The openai client works with a valid key
    Given a user api key second-Key-0815
    When the openai client calls chat completions, completions, embeddings and models
    Then each openai client call succeeded

  Scenario Outline: The original suite's completions with some user api key
    Given a prompt test
    And   a user api key <api_key>
    And   4 max tokens to predict
    And   a completion request with <api_error> api error

    Examples: Prompts
      | api_key        | api_error |
      | first-Key-4711 | no        |
      | hackeme        | raised    |
      |                | raised    |

  Scenario Outline: The original suite's OpenAI chat with some user api key
    Given a system prompt test
    And   a user prompt test
    And   a model test
    And   2 max tokens to predict
    And   streaming is disabled
    And   a user api key <api_key>
    Given an OAI compatible chat completions request with <api_error> api error

    Examples: Prompts
      | api_key         | api_error |
      | second-Key-0815 | no        |
      | hackme          | raised    |

  Scenario: The suite never shows the keys
    Given a user api key first-Key-4711
    When these endpoints are called with the key second-Key-0815 in X-Api-Key:
      | method | path      | body              |
      | POST   | /tokenize | {"content": "Hi"} |
    And  these endpoints are called with the key first-Key-4711:
      | method | path      | body              |
      | POST   | /tokenize | {"content": "Hi"} |
    And  the openai client calls embeddings
    Then the API key first-Key-4711 appears nowhere in what the suite reports
    And  the API key second-Key-0815 appears nowhere in what the suite reports
