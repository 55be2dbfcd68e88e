@server @context
Feature: Generation limits: the server's n_predict and the context window
  --n-predict is what a request gets when it asks for no limit (n_predict -1); an explicit n_predict wins.
  A slot's context holds the prompt and what is generated: a prompt that fills it is rejected with
  exceed_context_size_error (never truncated), with or without context shift. Without --context-shift
  generation stops when the context is full; with it, the context is shifted and generation goes on.

  Background: One slot of 256 tokens
    Given a server listening on localhost:8080
    And   a model file default
    And   42 as server seed
    And   1 slots
    And   256 KV cache size

  Scenario: --n-predict limits a request that asks for no limit
    Given 8 server max tokens to predict
    Then  the server is starting
    Given a prompt Once upon a time
    And   the request field ignore_eos is true
    When  a completion request with no api error
    Then  the completion generation settings say n_predict -1
    And   the finish reason is limit
    And   8 tokens are predicted

  Scenario: An explicit n_predict above --n-predict is honoured
    Given 8 server max tokens to predict
    Then  the server is starting
    Given a prompt Once upon a time
    And   12 max tokens to predict
    And   the request field ignore_eos is true
    When  a completion request with no api error
    Then  12 tokens are predicted

  Scenario Outline: A prompt of <n_prompt> tokens does not fit a 256-token slot (<option>)
    Given the server option <option>
    Then  the server is starting
    Given a prompt of <n_prompt> tokens
    And   4 max tokens to predict
    When  the queued prompt is posted to /completion as it is
    Then  the request is rejected with 400 exceed_context_size_error saying "exceeds the available context size"
    And   the error reports the prompt's token count and the slot context
    And   the server is healthy
    And   the server still generates text

    Examples:
      | n_prompt | option             |
      | 256      | --no-context-shift |
      | 300      | --no-context-shift |
      | 300      | --context-shift    |

  Scenario Outline: A chat prompt that does not fit the slot is rejected too (<path>)
    Then  the server is starting
    Given a prompt of 300 tokens
    And   4 max tokens to predict
    When  the queued prompt is posted to <path> as a chat message
    Then  the request is rejected with 400 exceed_context_size_error saying "exceeds the available context size"
    And   the server is healthy

    Examples:
      | path                 |
      | /v1/chat/completions |
      | /chat/completions    |

  Scenario: Without context shift, generation stops when the context is full
    Given the server option --no-context-shift
    Then  the server is starting
    Given a prompt of 230 tokens
    And   40 max tokens to predict
    And   the request field ignore_eos is true
    When  a completion request with no api error
    Then  the generation stopped when the context was full
    And   the completion was truncated
    And   26 tokens are predicted

  Scenario: With --context-shift, generation goes on past the end of the context
    Given the server option --context-shift
    Then  the server is starting
    Given a prompt of 230 tokens
    And   40 max tokens to predict
    And   the request field ignore_eos is true
    When  a completion request with no api error
    Then  the finish reason is limit
    And   the completion was truncated
    And   the timings account for every prompt token
    And   40 tokens are predicted

  Scenario: A completion that fits the context is not truncated
    Then  the server is starting
    Given a prompt of 100 tokens
    And   16 max tokens to predict
    And   the request field ignore_eos is true
    When  a completion request with no api error
    Then  the completion was not truncated
    And   16 tokens are predicted
