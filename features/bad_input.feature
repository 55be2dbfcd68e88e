@server @bad_input
Feature: Bad input
  A request the server cannot serve is refused with a JSON error that names the problem: 400
  invalid_request_error for malformed JSON, missing or mistyped fields, an invalid grammar or schema, 404
  not_found_error for an unknown route. The server stays healthy and keeps generating afterwards.
  Some values are not refused: an empty prompt string is accepted (it generates nothing unless the model adds
  BOS, which makes it one token), n_probs out of range is clamped.

  Background: One slot
    Given a server listening on localhost:8080
    And   a model file default
    And   1 slots
    And   256 KV cache size
    Then  the server is starting

  Scenario Outline: <case> on <path> is refused with 400
    When  a POST request to <path> with JSON <body>
    Then  the request is rejected with 400 invalid_request_error saying "<message>"
    And   the server is healthy
    And   the server still generates text

    Examples: Malformed JSON
      | case           | path                 | body                        | message     |
      | malformed JSON | /completion          | {"prompt": "hi",            | parse error |
      | malformed JSON | /completions         | {"prompt" "hi"}             | parse error |
      | malformed JSON | /v1/completions      | not json at all             | parse error |
      | malformed JSON | /v1/chat/completions | {"messages": [              | parse error |
      | malformed JSON | /chat/completions    | {'messages': []}            | parse error |
      | malformed JSON | /tokenize            | {"content": "hi"            | parse error |
      | malformed JSON | /apply-template      | [                           | parse error |

    Examples: Missing fields
      | case                | path                 | body              | message                 |
      | no prompt           | /completion          | {"n_predict": 4}  | key 'prompt' not found  |
      | no prompt           | /v1/completions      | {"max_tokens": 4} | key 'prompt' not found  |
      | no messages         | /v1/chat/completions | {"max_tokens": 4} | 'messages' is required  |
      | no messages         | /chat/completions    | {}                | 'messages' is required  |
      | no messages         | /apply-template      | {}                | 'messages' is required  |
      | no message content  | /v1/chat/completions | {"messages": [{"role": "user"}]} | must contain 'content' |

    Examples: Wrong types
      | case                  | path                 | body                                                                       | message                                 |
      | a number as prompt    | /completion          | {"prompt": 42}                                                             | "prompt" elements must be a string      |
      | an empty prompt list  | /completion          | {"prompt": []}                                                             | "prompt" must not be empty              |
      | messages not a list   | /v1/chat/completions | {"messages": "hello"}                                                      | Expected 'messages' to be an array      |
      | n_predict as text     | /completion          | {"prompt": "hi", "n_predict": "four"}                                      | Field 'n_predict'                       |
      | temperature as text   | /completion          | {"prompt": "hi", "temperature": "hot"}                                     | Field 'temperature'                     |
      | n_probs as text       | /completion          | {"prompt": "hi", "n_probs": "many"}                                        | Field 'n_probs'                         |
      | max_tokens as text    | /chat/completions    | {"messages": [{"role": "user", "content": "hi"}], "max_tokens": "many"}    | Field 'max_tokens'                      |
      | min_keep out of range | /completion          | {"prompt": "hi", "min_keep": -1}                                           | Field 'min_keep': Value must be between |
      | tokens as text        | /detokenize          | {"tokens": "abc"}                                                          | type must be array                      |

    Examples: Invalid constraints
      | case                   | path                 | body                                                                                               | message                                 |
      | an invalid grammar     | /completion          | {"prompt": "hi", "grammar": "root ::= this is (not valid"}                                         | failed to parse grammar                 |
      | an invalid grammar     | /v1/chat/completions | {"messages": [{"role": "user", "content": "hi"}], "grammar": "root ::= ("}                         | failed to parse grammar                 |
      | an invalid json_schema | /completion          | {"prompt": "hi", "json_schema": {"type": "hiccup"}}                                                | JSON schema conversion failed           |
      | an unknown format      | /v1/chat/completions | {"messages": [{"role": "user", "content": "hi"}], "response_format": {"type": "sound"}}            | response_format type must be one of     |

  Scenario Outline: <method> <path> is not a route: 404
    When  a <method> request to <path>
    Then  the request is rejected with 404 not_found_error saying "File Not Found"
    And   the server is healthy

    Examples:
      | method | path                 |
      | GET    | /nope                |
      | POST   | /v1/nope             |
      | GET    | /completion          |
      | GET    | /v1/chat/completions |

  # b9093 generates two tokens from an empty prompt; b11434 generates none.
  @build.from.11434
  Scenario: An empty prompt string is accepted and generates nothing
    Given the model adds no BOS token
    When  a POST request to /completion with JSON {"prompt": "", "n_predict": 4}
    Then  the response status is 200
    And   the response field content is ""
    And   the response field tokens_predicted is 0
    And   the response field stop_type is none
    And   the server still generates text

  # A model that adds BOS makes an empty prompt one token long: the server generates from it.
  Scenario: An empty prompt string of a model that adds BOS is one token, and generates
    Given the model adds a BOS token
    When  a POST request to /completion with JSON {"prompt": "", "n_predict": 4, "ignore_eos": true}
    Then  the response status is 200
    And   the response field tokens_predicted is 4
    And   the response field timings.prompt_n is 1
    And   the server still generates text

  Scenario: A negative n_probs returns no probabilities
    Given a prompt I believe the meaning of life is
    And   2 max tokens to predict
    And   the request field n_probs is -1
    When  a completion request with no api error
    Then  no token probabilities are returned
    And   the server still generates text

  # The vocabulary size is the model's (meta.n_vocab of /v1/models), so this holds for any model.
  Scenario: n_probs above the vocabulary size is clamped to it
    Given a prompt I believe the meaning of life is
    And   1 max tokens to predict
    And   n_probs of 1000 more than the model's vocabulary size
    When  a completion request with no api error
    Then  each predicted token comes with one probability per vocabulary token
    And   the server still generates text
