@server @rerank
Feature: Reranking
  With --rerank and a reranking model, /rerank and /v1/rerank score documents against a query (Jina format):
  one result per document, best first, top_n at most. Reranking needs a model trained for it: name one
  with LLAMA_BDD_RERANK_MODEL, otherwise those scenarios are skipped, saying so.

  # /reranking and /v1/reranking are aliases of /rerank and /v1/rerank (the same handler in server.cpp).
  Scenario Outline: Without --rerank, <path> answers 501
    Given a server listening on localhost:8080
    And   a model file default
    And   1 slots
    And   256 KV cache size
    Then  the server is starting
    When  a POST request to <path> with JSON {"query": "What is a panda?", "documents": ["hi", "a bear"]}
    Then  the request is rejected with 501 not_supported_error saying "--reranking"

    Examples:
      | path           |
      | /rerank        |
      | /v1/rerank     |
      | /reranking     |
      | /v1/reranking  |

  @requires.rerank
  Scenario Outline: Documents are ranked by relevance through <path>
    Given a server listening on localhost:8080
    And   a reranking model
    And   1 slots
    And   2048 KV cache size
    Then  the server is starting
    When  the query "What is a panda?" is reranked against these documents through <path>:
      | document                                                                                  |
      | hi                                                                                        |
      | The giant panda, also known as the panda bear, is a bear species endemic to China.       |
      | it's a bear                                                                               |
    Then  one relevance score is returned per document, best first
    And   the most relevant document is document 1
    And   the rerank usage counts the prompt tokens

    Examples:
      | path          |
      | /rerank       |
      | /v1/rerank    |
      | /reranking    |
      | /v1/reranking |

  @requires.rerank
  Scenario: top_n keeps only the best documents
    Given a server listening on localhost:8080
    And   a reranking model
    And   1 slots
    And   2048 KV cache size
    Then  the server is starting
    Given the request field top_n is 2
    When  the query "What is a panda?" is reranked against these documents through /v1/rerank:
      | document                                                                                  |
      | hi                                                                                        |
      | The giant panda, also known as the panda bear, is a bear species endemic to China.       |
      | it's a bear                                                                               |
    Then  one relevance score is returned per document, best first
