@server @logprobs
Feature: Token probabilities
  logprobs with top_logprobs on the chat route and on /v1/completions give, for every generated token, its
  logprob and its most likely alternatives, sorted; /completion's post_sampling_probs gives probabilities
  after the samplers. /v1/completions answers llama-server's content list, not OpenAI's legacy token lists.

  Background: One slot, greedy sampling
    Given a server listening on localhost:8080
    And   a model file default
    And   1 slots
    And   512 KV cache size
    And   42 as server seed
    Then  the server is starting
    Given the request field temperature is 0
    And   4 max tokens to predict
    And   the request field ignore_eos is true

  Scenario Outline: A chat answer carries logprobs and top_logprobs (<client>, streamed <streamed>)
    Given the request field logprobs is true
    And   the request field top_logprobs is 3
    And   streaming is <streamed>
    And   a user prompt Name a colour.
    When  a chat completion is requested from /v1/chat/completions with <client>
    Then  each generated token comes with its logprob and 3 top logprobs

    Examples:
      | client            | streamed |
      | the openai client | disabled |
      | raw HTTP          | disabled |
      | raw HTTP          | enabled  |

  Scenario: A chat answer carries no logprobs unless asked
    Given a user prompt Name a colour.
    When  a chat completion is requested from /v1/chat/completions with raw HTTP
    Then  the answer carries no logprobs

  Scenario: top_logprobs without logprobs is refused
    When  a POST request to /v1/chat/completions with JSON {"messages": [{"role": "user", "content": "hi"}], "max_tokens": 1, "top_logprobs": 2}
    Then  the request is rejected with 400 invalid_request_error saying "top_logprobs requires logprobs"

  Scenario Outline: A text completion carries logprobs for each token (<client>)
    Given the request field logprobs is 2
    And   a prompt The capital of France is
    When  a text completion is requested from /v1/completions with <client>
    Then  each generated token comes with its logprob and 2 top logprobs

    Examples:
      | client            |
      | the openai client |
      | raw HTTP          |

  Scenario: Native n_probs gives the most likely tokens of each step
    Given the request field n_probs is 3
    And   a prompt The capital of France is
    When  a completion request with no api error
    Then  each predicted token comes with its 3 most likely tokens

  Scenario: post_sampling_probs gives probabilities after the samplers
    Given the request field n_probs is 3
    And   the request field post_sampling_probs is true
    And   a prompt The capital of France is
    When  a completion request with no api error
    Then  each predicted token comes with at most 3 post-sampling probabilities
